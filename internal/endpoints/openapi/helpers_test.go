package openapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/apis/install"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/server/mux"
)

// fixedNow is the clock of test services.
var fixedNow = time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)

var (
	appsV1 = schema.GroupVersion{Group: "apps", Version: "v1"}
	coreV1 = schema.GroupVersion{Version: "v1"}
)

// fakeStorage is storage of obj's kind that serves nothing.
type fakeStorage struct{ obj runtime.Object }

func (f fakeStorage) New() runtime.Object { return f.obj.DeepCopyObject() }
func (f fakeStorage) Destroy()            {}

// fakeConnecter is the storage of a connect subresource.
type fakeConnecter struct {
	fakeStorage
	methods []string
}

func (f fakeConnecter) ConnectMethods() []string { return f.methods }
func (f fakeConnecter) Connect(context.Context, string, *http.Request) (http.Handler, error) {
	return nil, nil
}

var _ rest.Connecter = fakeConnecter{}

var allVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// schemeResources lists, per group version of scheme, a discovery entry
// for every kind with a list kind, as the installer announces them, and
// a few subresources of other kinds and connect subresources.
func schemeResources(scheme *runtime.Scheme) (map[schema.GroupVersion][]metav1.APIResource, map[schema.GroupVersion]map[string]rest.Storage) {
	known := scheme.AllKnownTypes()
	resources := map[schema.GroupVersion][]metav1.APIResource{}
	storage := map[schema.GroupVersion]map[string]rest.Storage{}
	for gvk, t := range known {
		if strings.HasPrefix(t.PkgPath(), "k8s.io/apimachinery/") || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		if _, ok := known[gvk.GroupVersion().WithKind(gvk.Kind+"List")]; !ok {
			continue
		}
		gv := gvk.GroupVersion()
		resources[gv] = append(resources[gv], metav1.APIResource{
			Name: strings.ToLower(gvk.Kind) + "s", Kind: gvk.Kind, Namespaced: true, Verbs: allVerbs,
		})
	}
	resources[appsV1] = append(resources[appsV1],
		metav1.APIResource{Name: "deployments/status", Kind: "Deployment", Namespaced: true, Verbs: []string{"get", "patch", "update"}},
		metav1.APIResource{Name: "deployments/scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Namespaced: true, Verbs: []string{"get", "patch", "update"}},
	)
	resources[coreV1] = append(resources[coreV1],
		metav1.APIResource{Name: "pods/exec", Kind: "PodExecOptions", Namespaced: true, Verbs: []string{"create", "get"}},
	)
	storage[coreV1] = map[string]rest.Storage{
		"pods/exec": fakeConnecter{fakeStorage{&corev1.PodExecOptions{}}, []string{"GET", "POST"}},
	}
	for gv := range resources {
		slices.SortFunc(resources[gv], func(a, b metav1.APIResource) int { return strings.Compare(a.Name, b.Name) })
	}
	return resources, storage
}

// newInstalledScheme returns a scheme with everything kapi serves.
func newInstalledScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	return scheme, install.InstallAll(scheme)
}

// buildService returns a built service of the real scheme's group
// versions (only those named, if any), with a fixed clock.
func buildService(only ...schema.GroupVersion) (*Service, error) {
	scheme, err := newInstalledScheme()
	if err != nil {
		return nil, err
	}
	s := NewService(scheme, Info{Title: "Kubernetes", Version: "v1.37.2"})
	s.now = func() time.Time { return fixedNow }
	resources, storage := schemeResources(scheme)
	for gv, list := range resources {
		if len(only) == 0 || slices.Contains(only, gv) {
			s.AddGroupVersion(gv, list, storage[gv])
		}
	}
	return s, s.Build()
}

// newSchemeService is a service of every group version, for one test,
// which may change it.
func newSchemeService(t testing.TB) *Service {
	t.Helper()
	s, err := buildService()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return s
}

// newSmallService is a service of apps/v1 and core/v1 only, for tests
// that change documents: cheaper to re-encode under -race.
func newSmallService(t testing.TB) *Service {
	t.Helper()
	s, err := buildService(appsV1, coreV1)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return s
}

// sharedSchemeService is one service for the tests that only read: Build
// of the whole scheme is the slow part of them.
func sharedSchemeService(t testing.TB) *Service {
	t.Helper()
	s, err := shared()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return s
}

var shared = sync.OnceValues(func() (*Service, error) { return buildService() })

// serve returns a handler with the service installed on a real mux.
func serve(s *Service) http.Handler {
	m := mux.NewPathRecorderMux("openapi-test", nil)
	s.Install(m)
	return m
}

// get sends a request to h and returns the recorded response.
func get(t testing.TB, h http.Handler, method, target string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// unstructuredStorage stands for a custom resource's storage.
func unstructuredStorage() rest.Storage {
	return fakeStorage{&unstructured.Unstructured{}}
}
