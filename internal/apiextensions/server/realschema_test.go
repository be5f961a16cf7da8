package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/internal/apiextensions/schema"
	"github.com/kapi-dev/kapi/internal/endpoints/discovery"
	"github.com/kapi-dev/kapi/internal/endpoints/warning"
	"github.com/kapi-dev/kapi/internal/storage/memory"
)

// realSchema compiles with the schema package, as the integrator does.
type realSchema struct{}

func (realSchema) Compile(s *apiextv1.JSONSchemaProps) (VersionSchema, error) {
	st, errs := schema.NewStructural(s, field.NewPath("openAPIV3Schema"))
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	v, err := schema.NewValidator(s)
	if err != nil {
		return nil, err
	}
	return realVersion{props: s, structural: st, validator: v}, nil
}

type realVersion struct {
	props      *apiextv1.JSONSchemaProps
	structural *schema.Structural
	validator  *schema.Validator
}

func (v realVersion) Validate(_ context.Context, obj, _ map[string]any) field.ErrorList {
	return v.validator.Validate(obj)
}
func (v realVersion) Prune(obj map[string]any) []string { return schema.Prune(obj, v.structural, true) }
func (v realVersion) Default(obj map[string]any)        { schema.Default(obj, v.structural) }
func (v realVersion) OpenAPI() (*spec.Schema, error)    { return schema.ToOpenAPI(v.props) }

// props parses a JSON schema.
func props(t testing.TB, js string) *apiextv1.CustomResourceValidation {
	t.Helper()
	p := &apiextv1.JSONSchemaProps{}
	if err := json.Unmarshal([]byte(js), p); err != nil {
		t.Fatal(err)
	}
	return &apiextv1.CustomResourceValidation{OpenAPIV3Schema: p}
}

// widgetSchema: spec.size >= 1, spec.color defaults to red, spec.replicas,
// status.replicas; colorField renames color (v1alpha1 says colour).
func widgetSchema(t testing.TB, colorField string) *apiextv1.CustomResourceValidation {
	return props(t, `{"type":"object","properties":{
		"spec":{"type":"object","properties":{
			"size":{"type":"integer","minimum":1,"description":"how big"},
			"`+colorField+`":{"type":"string","default":"red"},
			"replicas":{"type":"integer"}}},
		"status":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}`)
}

// realWidgetCRD is widgetCRD with real schemas; v1alpha1 names the color
// field colour.
func realWidgetCRD(t testing.TB) *apiextv1.CustomResourceDefinition {
	c := widgetCRD(apiextv1.NamespaceScoped)
	c.Spec.Versions[0].Schema = widgetSchema(t, "color")
	c.Spec.Versions[1].Schema = widgetSchema(t, "colour")
	return c
}

type envOptions struct {
	schema     SchemaCompiler
	converters ConverterFactory
}

// newRealEnv is newTestEnv with the real schema package (unless opts say
// otherwise) and Warning headers.
func newRealEnv(t testing.TB, opts envOptions, crds ...*apiextv1.CustomResourceDefinition) *testEnv {
	t.Helper()
	backend := memory.New()
	t.Cleanup(func() { _ = backend.Close() })
	src := &fakeSource{crds: map[string]*apiextv1.CustomResourceDefinition{}}
	for _, c := range crds {
		src.set(c)
	}
	if opts.schema == nil {
		opts.schema = realSchema{}
	}
	disc := discovery.NewManager(discovery.Options{})
	h, err := New(Config{Source: src, RESTOptionsGetter: jsonOptions{backend}, Schema: opts.schema, Discovery: disc, Converters: opts.converters})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(withWarnings(withTestFilters(h)))
	t.Cleanup(srv.Close)
	return &testEnv{src: src, h: h, disc: disc, server: srv}
}

// headerRecorder writes warnings as Warning headers as they come.
type headerRecorder struct{ w http.ResponseWriter }

func (r headerRecorder) AddWarning(_, text string) {
	r.w.Header().Add("Warning", `299 - "`+text+`"`)
}

func withWarnings(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		next.ServeHTTP(w, req.WithContext(warning.WithRecorder(req.Context(), headerRecorder{w})))
	})
}
