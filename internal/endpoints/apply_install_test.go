package endpoints

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/apps/deployment"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
)

// countingConverter counts the objects converted to typed values.
type countingConverter struct {
	managedfields.TypeConverter
	calls atomic.Int64
}

func (c *countingConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	c.calls.Add(1)
	return c.TypeConverter.ObjectToTyped(obj, opts...)
}

// TestFieldManagersAreBuiltAtInstall: every (sub)resource scope holds its
// field manager once Install returns, and building them did not touch the
// type converter (a lazy one stays lazy); requests use it.
func TestFieldManagersAreBuiltAtInstall(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	storage, err := deployment.NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	tc := &countingConverter{TypeConverter: applyconfigurations.NewTypeConverter(clientgoscheme.Scheme)}
	g := &APIGroupVersion{GroupVersion: appsv1.SchemeGroupVersion, Storage: storage, Scheme: scheme, Codecs: serializer.NewCodecFactory(scheme), TypeConverter: tc}
	h, _, err := g.Install()
	if err != nil {
		t.Fatal(err)
	}
	resources := h.(*groupVersionHandler).resources
	for _, path := range []string{"deployments", "deployments/status", "deployments/scale"} {
		if rh := resources[path]; rh == nil || rh.scope.FieldManager == nil {
			t.Errorf("%s: no field manager at install", path)
		}
	}
	if n := tc.calls.Load(); n != 0 {
		t.Errorf("Install converted %d objects, want none", n)
	}

	body := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  selector:\n    matchLabels: {app: d}\n  template:\n    metadata:\n      labels: {app: d}\n    spec:\n      containers:\n      - {name: app, image: nginx}\n"
	req := httptest.NewRequest("PATCH", "/apis/apps/v1/namespaces/ns1/deployments/d?fieldManager=A", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/apply-patch+yaml")
	info, err := request.NewRequestInfoFactory().NewRequestInfo(req)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req.WithContext(request.WithRequestInfo(req.Context(), info)))
	if rec.Code != http.StatusCreated {
		t.Fatalf("apply: %d %s", rec.Code, rec.Body)
	}
	if tc.calls.Load() == 0 {
		t.Error("apply did not use the type converter")
	}
}
