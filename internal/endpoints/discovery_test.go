package endpoints_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kapi-dev/kapi/internal/endpoints"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func TestAPIResources(t *testing.T) {
	env := newTestEnv(t)
	want := []metav1.APIResource{
		{
			Name: "configmaps", SingularName: "configmap", Namespaced: true, Kind: "ConfigMap",
			Verbs:      []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
			ShortNames: []string{"cm"}, Categories: []string{"all"},
			StorageVersionHash: "qFsyl6wFWjQ=", // kube-apiserver's value
		},
		{
			Name: "readonlyconfigmaps", SingularName: "configmap", Namespaced: true, Kind: "ConfigMap",
			Verbs: []string{"get"}, StorageVersionHash: "qFsyl6wFWjQ=",
		},
	}
	if diff := cmp.Diff(want, env.resources); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
	rec := env.do(t, "GET", "/api/v1", "")
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Body.String(), `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["create",`) {
		t.Errorf("GET /api/v1: %d %s", rec.Code, rec.Body)
	}
	if rec := env.do(t, "POST", "/api/v1", "{}"); rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /api/v1: %d", rec.Code)
	}
}

// scaleStorage is a subresource answering another group's kind.
type scaleStorage struct{}

func (scaleStorage) New() runtime.Object { return &autoscalingv1.Scale{} }
func (scaleStorage) Destroy()            {}
func (scaleStorage) Get(_ context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	return &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil
}

func TestNamedGroupResources(t *testing.T) {
	gv := schema.GroupVersion{Group: "example.com", Version: "v1"}
	scheme := newScheme(t)
	scheme.AddKnownTypes(gv, &corev1.ConfigMap{}, &corev1.ConfigMapList{})
	metav1.AddToGroupVersion(scheme, gv)
	if err := autoscalingv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	g := &endpoints.APIGroupVersion{
		GroupVersion: gv,
		Storage:      map[string]rest.Storage{"widgets": newFakeConfigMaps(), "widgets/scale": scaleStorage{}},
		Scheme:       scheme,
		Codecs:       serializer.NewCodecFactory(scheme),
	}
	h, resources, err := g.Install()
	if err != nil {
		t.Fatal(err)
	}
	if r := resources[0]; r.Kind != "ConfigMap" || r.Group != "" || r.StorageVersionHash != "1Azp6iXuqFA=" {
		t.Errorf("widgets: %+v", r)
	}
	if r := resources[1]; r.Name != "widgets/scale" || r.Group != "autoscaling" || r.Version != "v1" || r.Kind != "Scale" || r.StorageVersionHash != "" {
		t.Errorf("widgets/scale: %+v", r)
	}
	rec := httptest.NewRecorder()
	withTestFilters(h).ServeHTTP(rec, httptest.NewRequest("GET", "/apis/example.com/v1/", nil))
	if !strings.HasPrefix(rec.Body.String(), `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"example.com/v1",`) {
		t.Errorf("GET /apis/example.com/v1: %s", rec.Body)
	}
	rec = httptest.NewRecorder()
	withTestFilters(h).ServeHTTP(rec, httptest.NewRequest("GET", "/apis/example.com/v1/namespaces/ns1/widgets/w/scale", nil))
	if !strings.Contains(rec.Body.String(), `"kind":"Scale","apiVersion":"autoscaling/v1"`) {
		t.Errorf("GET scale: %s", rec.Body)
	}
}
