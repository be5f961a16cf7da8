package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/discovery"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/memory"
)

// fakeSource serves in-memory CRDs.
type fakeSource struct {
	mu   sync.Mutex
	crds map[string]*apiextv1.CustomResourceDefinition
}

func (s *fakeSource) List(context.Context) ([]*apiextv1.CustomResourceDefinition, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*apiextv1.CustomResourceDefinition
	for _, c := range s.crds {
		out = append(out, c.DeepCopy())
	}
	return out, nil
}

func (s *fakeSource) Watch(context.Context) (<-chan struct{}, error) { return make(chan struct{}), nil }

func (s *fakeSource) set(c *apiextv1.CustomResourceDefinition) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.crds[c.Name] = c
}

func (s *fakeSource) remove(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.crds, name)
}

// jsonOptions stores unstructured objects as JSON in one memory backend.
type jsonOptions struct{ backend *memory.Backend }

func (g jsonOptions) GetRESTOptions(gr schema.GroupResource, _ runtime.Object) (generic.RESTOptions, error) {
	prefix := "/" + gr.Group + "/" + gr.Resource
	return generic.RESTOptions{ResourcePrefix: prefix, Storage: func(newFunc, newListFunc func() runtime.Object) (storage.Interface, error) {
		return g.backend.ForResource(storage.ResourceConfig{Codec: unstructured.UnstructuredJSONScheme, NewFunc: newFunc,
			NewListFunc: newListFunc, ResourcePrefix: prefix, GroupResource: gr})
	}}, nil
}

// stubSchema: spec.size must be >= 1, spec.color defaults to "red", and
// only spec.size/spec.color/spec.replicas and status.* are known.
type stubSchema struct{}

func (stubSchema) Compile(*apiextv1.JSONSchemaProps) (VersionSchema, error) {
	return stubVersion{}, nil
}

type stubVersion struct{}

func (stubVersion) Validate(_ context.Context, obj, _ map[string]any) field.ErrorList {
	n, found, _ := unstructured.NestedInt64(obj, "spec", "size")
	if found && n < 1 {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "size"), n, "spec.size in body should be greater than or equal to 1")}
	}
	return nil
}

func (stubVersion) Prune(obj map[string]any) []string {
	spec, ok := obj["spec"].(map[string]any)
	if !ok {
		return nil
	}
	var pruned []string
	for k := range spec {
		if k != "size" && k != "color" && k != "replicas" {
			delete(spec, k)
			pruned = append(pruned, "spec."+k)
		}
	}
	return pruned
}

func (stubVersion) Default(obj map[string]any) {
	if spec, ok := obj["spec"].(map[string]any); ok {
		if _, set := spec["color"]; !set {
			spec["color"] = "red"
		}
	}
}

func (stubVersion) OpenAPI() (*spec.Schema, error) { return noSchema{}.OpenAPI() }

func widgetCRD(scope apiextv1.ResourceScope) *apiextv1.CustomResourceDefinition {
	names := apiextv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList",
		ShortNames: []string{"wd"}, Categories: []string{"all"}}
	schemaProps := &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{Type: "object"}}
	sub := &apiextv1.CustomResourceSubresources{Status: &apiextv1.CustomResourceSubresourceStatus{},
		Scale: &apiextv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"}}
	cols := []apiextv1.CustomResourceColumnDefinition{{Name: "Color", Type: "string", JSONPath: ".spec.color"}, {Name: "Size", Type: "integer", JSONPath: ".spec.size"}}
	return &apiextv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com", UID: "uid-1", ResourceVersion: "1"},
		Spec: apiextv1.CustomResourceDefinitionSpec{Group: "example.com", Names: names, Scope: scope, Versions: []apiextv1.CustomResourceDefinitionVersion{
			{Name: "v1", Served: true, Storage: true, Schema: schemaProps, Subresources: sub, AdditionalPrinterColumns: cols,
				SelectableFields: []apiextv1.SelectableField{{JSONPath: ".spec.color"}}},
			{Name: "v1alpha1", Served: true, Schema: schemaProps, Subresources: sub, AdditionalPrinterColumns: cols},
		}},
		Status: apiextv1.CustomResourceDefinitionStatus{AcceptedNames: names, Conditions: []apiextv1.CustomResourceDefinitionCondition{
			{Type: apiextv1.Established, Status: apiextv1.ConditionTrue}}},
	}
}

func gadgetCRD() *apiextv1.CustomResourceDefinition {
	c := widgetCRD(apiextv1.ClusterScoped)
	c.Name, c.UID = "gadgets.example.com", "uid-2"
	c.Spec.Names = apiextv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"}
	c.Status.AcceptedNames = c.Spec.Names
	return c
}

type testEnv struct {
	src    *fakeSource
	h      *Handler
	disc   *discovery.Manager
	server *httptest.Server
}

func newTestEnv(t *testing.T, crds ...*apiextv1.CustomResourceDefinition) *testEnv {
	t.Helper()
	backend := memory.New()
	t.Cleanup(func() { _ = backend.Close() })
	src := &fakeSource{crds: map[string]*apiextv1.CustomResourceDefinition{}}
	for _, c := range crds {
		src.set(c)
	}
	disc := discovery.NewManager(discovery.Options{})
	h, err := New(Config{Source: src, RESTOptionsGetter: jsonOptions{backend}, Schema: stubSchema{}, Discovery: disc})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(withTestFilters(h))
	t.Cleanup(srv.Close)
	return &testEnv{src: src, h: h, disc: disc, server: srv}
}

func withTestFilters(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		info, err := request.NewRequestInfoFactory().NewRequestInfo(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ctx := request.WithRequestInfo(req.Context(), info)
		ctx = request.WithNamespace(ctx, info.Namespace)
		ctx = request.WithUser(ctx, &user.DefaultInfo{Name: "tester"})
		next.ServeHTTP(w, req.WithContext(ctx))
	})
}

// do sends a request and returns the status and body.
func (e *testEnv) do(t testing.TB, method, path, body string, headers ...string) (int, string) {
	t.Helper()
	code, b, _ := e.doH(t, method, path, body, headers...)
	return code, b
}

// doH sends a request and returns the status, body and headers.
func (e *testEnv) doH(t testing.TB, method, path, body string, headers ...string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, e.server.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b), resp.Header
}

func widget(version, name string, spec string) string {
	return fmt.Sprintf(`{"apiVersion":"example.com/%s","kind":"Widget","metadata":{"name":%q},"spec":%s}`, version, name, spec)
}

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }
