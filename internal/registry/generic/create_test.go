package generic_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/registry/rest/resttest"
)

func TestCreate(t *testing.T) {
	tests := []struct {
		name        string
		requestNS   string
		obj         *corev1.ConfigMap
		validation  rest.ValidateObjectFunc
		wantCode    int32
		wantMessage string
		check       func(t *testing.T, got *corev1.ConfigMap)
	}{
		{
			name: "fills server fields", requestNS: "ns", obj: newConfigMap("", "foo", map[string]string{"a": "b"}),
			check: func(t *testing.T, got *corev1.ConfigMap) {
				if got.Namespace != "ns" || got.UID == "" || got.CreationTimestamp.IsZero() || got.ResourceVersion == "" {
					t.Errorf("namespace, uid, creationTimestamp, resourceVersion = %q %q %v %q; want all set",
						got.Namespace, got.UID, got.CreationTimestamp, got.ResourceVersion)
				}
				if got.Data["a"] != "b" {
					t.Errorf("data = %v", got.Data)
				}
			},
		},
		{
			name: "generateName", requestNS: "ns",
			obj: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-"}},
			check: func(t *testing.T, got *corev1.ConfigMap) {
				if !strings.HasPrefix(got.Name, "gen-") || len(got.Name) != len("gen-")+5 {
					t.Errorf("name = %q, want gen- and 5 characters", got.Name)
				}
			},
		},
		{
			name: "already exists", requestNS: "ns", obj: newConfigMap("", "existing", nil),
			wantCode: 409, wantMessage: `configmaps "existing" already exists`,
		},
		{
			name: "invalid", requestNS: "ns", obj: newConfigMap("", "foo", map[string]string{resttest.InvalidKey: "v"}),
			wantCode: 422, wantMessage: `ConfigMap "foo" is invalid: data[invalid]: Invalid value: "v": this key is reserved for tests`,
		},
		{
			name: "namespace mismatch", requestNS: "ns", obj: newConfigMap("other", "foo", nil),
			wantCode: 400, wantMessage: "the namespace of the provided object does not match the namespace sent on the request",
		},
		{
			name: "admission rejects", requestNS: "ns", obj: newConfigMap("", "foo", nil),
			validation: func(_ context.Context, obj runtime.Object) error {
				return apierrors.NewForbidden(corev1.Resource("configmaps"), obj.(*corev1.ConfigMap).Name, errors.New("denied"))
			},
			wantCode: 403, wantMessage: `configmaps "foo" is forbidden: denied`,
		},
		{
			name: "resourceVersion set", requestNS: "ns",
			obj:      &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "foo", ResourceVersion: "3"}},
			wantCode: 500, wantMessage: "Internal error occurred: resourceVersion should not be set on objects to be created",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, nil)
			mustCreate(t, s, newConfigMap("ns", "existing", nil))
			out, err := s.Create(nsContext(tt.requestNS), tt.obj, tt.validation, &metav1.CreateOptions{})
			wantStatus(t, err, tt.wantCode, tt.wantMessage)
			if err != nil {
				return
			}
			got := out.(*corev1.ConfigMap)
			if stored := mustGet(t, s, got.Namespace, got.Name); stored.UID != got.UID || stored.ResourceVersion != got.ResourceVersion {
				t.Errorf("stored %q/%q, returned %q/%q", stored.UID, stored.ResourceVersion, got.UID, got.ResourceVersion)
			}
			if tt.check != nil {
				tt.check(t, got)
			}
		})
	}
}

func TestCreateDryRun(t *testing.T) {
	s := newStore(t, nil)
	mustCreate(t, s, newConfigMap("ns", "existing", nil))
	dryRun := &metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}

	out, err := s.Create(nsContext("ns"), newConfigMap("", "foo", nil), nil, dryRun)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*corev1.ConfigMap); got.UID == "" || got.Name != "foo" {
		t.Errorf("dry-run result = %+v, want the object as it would be stored", got.ObjectMeta)
	}
	wantNotFound(t, s, "ns", "foo")

	_, err = s.Create(nsContext("ns"), newConfigMap("", "existing", nil), nil, dryRun)
	wantStatus(t, err, 409, `configmaps "existing" already exists`)
}

func TestCreateObjectBeingDeleted(t *testing.T) {
	s := newStore(t, nil)
	cm := newConfigMap("ns", "foo", nil)
	cm.Finalizers = []string{"example.com/wait"}
	mustCreate(t, s, cm)
	if _, _, err := s.Delete(nsContext("ns"), "foo", nil, &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Create(nsContext("ns"), newConfigMap("", "foo", nil), nil, &metav1.CreateOptions{})
	wantStatus(t, err, 409, `object is being deleted: configmaps "foo" already exists`)
}

func TestCreateClusterScoped(t *testing.T) {
	s := newStore(t, func(_ *generic.Store, strategy *resttest.ConfigMapStrategy) {
		strategy.ClusterScoped = true
	})
	out, err := s.Create(nsContext(""), newConfigMap("ignored", "foo", nil), nil, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ns := out.(*corev1.ConfigMap).Namespace; ns != "" {
		t.Errorf("namespace = %q, want none", ns)
	}
	mustGet(t, s, "", "foo")
}
