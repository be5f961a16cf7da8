package openapi

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/routes"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// returnsDeleted is storage whose DELETE answers with the object.
type returnsDeleted struct{ fakeStorage }

func (returnsDeleted) DeleteReturnsDeletedObject() bool { return true }

func TestResourcesOf(t *testing.T) {
	scheme, err := newInstalledScheme()
	if err != nil {
		t.Fatal(err)
	}
	withPatch := []string{"application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml"}
	noStrategic := []string{"application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"}
	tests := []struct {
		name      string
		gv        schema.GroupVersion
		resource  metav1.APIResource
		storage   rest.Storage
		want      routes.Resource
		wantRoots []reflect.Type
		wantErr   string
	}{
		{
			name:     "main resource",
			gv:       appsV1,
			resource: metav1.APIResource{Name: "deployments", Kind: "Deployment", Verbs: allVerbs},
			storage:  fakeStorage{&appsv1.Deployment{}},
			want: routes.Resource{
				Kind: appsV1.WithKind("Deployment"), Object: "io.k8s.api.apps.v1.Deployment", List: "io.k8s.api.apps.v1.DeploymentList",
				PatchTypes: withPatch,
			},
			wantRoots: []reflect.Type{reflect.TypeFor[*appsv1.Deployment](), reflect.TypeFor[*appsv1.DeploymentList]()},
		},
		{
			name:     "no storage: typed",
			gv:       appsV1,
			resource: metav1.APIResource{Name: "deployments", Kind: "Deployment", Verbs: []string{"get", "patch"}},
			want:     routes.Resource{Kind: appsV1.WithKind("Deployment"), Object: "io.k8s.api.apps.v1.Deployment", PatchTypes: withPatch},
		},
		{
			name:     "subresource of another group's kind",
			gv:       appsV1,
			resource: metav1.APIResource{Name: "deployments/scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: []string{"get", "list", "update"}},
			want:     routes.Resource{Kind: schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, Object: "io.k8s.api.autoscaling.v1.Scale"},
		},
		{
			name:     "unstructured storage: no strategic merge",
			gv:       appsV1,
			resource: metav1.APIResource{Name: "deployments", Kind: "Deployment", Verbs: []string{"patch"}},
			storage:  unstructuredStorage(),
			want:     routes.Resource{Kind: appsV1.WithKind("Deployment"), Object: "io.k8s.api.apps.v1.Deployment", PatchTypes: noStrategic},
		},
		{
			name:     "connect subresource",
			gv:       coreV1,
			resource: metav1.APIResource{Name: "pods/exec", Kind: "PodExecOptions", Verbs: []string{"create", "get"}},
			storage:  fakeConnecter{fakeStorage{&corev1.PodExecOptions{}}, []string{"GET", "POST"}},
			want:     routes.Resource{Kind: coreV1.WithKind("PodExecOptions"), Object: "io.k8s.api.core.v1.PodExecOptions", ConnectMethods: []string{"GET", "POST"}},
		},
		{
			name:     "delete answering the object",
			gv:       coreV1,
			resource: metav1.APIResource{Name: "pods", Kind: "Pod", Verbs: []string{"delete"}},
			storage:  returnsDeleted{fakeStorage{&corev1.Pod{}}},
			want:     routes.Resource{Kind: coreV1.WithKind("Pod"), Object: "io.k8s.api.core.v1.Pod", DeleteReturnsObject: true},
		},
		{
			name:     "generic store answering the object",
			gv:       coreV1,
			resource: metav1.APIResource{Name: "pods", Kind: "Pod", Verbs: []string{"delete"}},
			storage:  &generic.Store{NewFunc: func() runtime.Object { return &corev1.Pod{} }, ReturnDeletedObject: true},
			want:     routes.Resource{Kind: coreV1.WithKind("Pod"), Object: "io.k8s.api.core.v1.Pod", DeleteReturnsObject: true},
		},
		{
			name:     "unknown kind",
			gv:       appsV1,
			resource: metav1.APIResource{Name: "widgets", Kind: "Widget", Verbs: allVerbs},
			wantErr:  `resource "widgets" of apps/v1`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			storage := map[string]rest.Storage{}
			if tt.storage != nil {
				storage[tt.resource.Name] = tt.storage
			}
			got, roots, err := resourcesOf(scheme, tt.gv, []metav1.APIResource{tt.resource}, storage)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one naming %s", err, tt.wantErr)
				}
				if len(got) != 0 {
					t.Errorf("resources %v, want none", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.GroupVersion, want.APIResource = tt.gv, tt.resource
			if diff := cmp.Diff([]routes.Resource{want}, got, cmp.Comparer(func(a, b reflect.Type) bool { return a == b })); diff != "" {
				t.Errorf("resources (-want +got):\n%s", diff)
			}
			if tt.wantRoots != nil {
				if diff := cmp.Diff(tt.wantRoots, roots, cmp.Comparer(func(a, b reflect.Type) bool { return a == b })); diff != "" {
					t.Errorf("roots (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestKeyOf(t *testing.T) {
	tests := []struct {
		gv   schema.GroupVersion
		want string
	}{
		{coreV1, "api/v1"},
		{appsV1, "apis/apps/v1"},
		{schema.GroupVersion{Group: "rbac.authorization.k8s.io", Version: "v1"}, "apis/rbac.authorization.k8s.io/v1"},
	}
	for _, tt := range tests {
		if got := keyOf(tt.gv); got != tt.want {
			t.Errorf("keyOf(%v) = %q, want %q", tt.gv, got, tt.want)
		}
	}
}
