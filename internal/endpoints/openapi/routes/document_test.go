package routes

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/definitions"
)

// refs lists the definition names a marshalled document refers to.
func refs(t *testing.T, doc []byte, prefix string) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if s, ok := e.(string); ok && k == "$ref" {
					if !strings.HasPrefix(s, prefix) {
						t.Errorf("reference %q does not start with %q", s, prefix)
					}
					seen[strings.TrimPrefix(s, prefix)] = true
				}
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// declared are the definition names a service would put beside the
// paths: the resources' own and Paths.Types.
func declared(resources []Resource, p Paths) map[string]bool {
	names := map[string]bool{}
	for _, r := range resources {
		for _, n := range []string{r.Object, r.List} {
			if n != "" {
				names[n] = true
			}
		}
	}
	for _, t := range p.Types {
		names[definitions.Name(t)] = true
	}
	return names
}

// stubs are bare object schemas for names.
func stubs(names []string) map[string]*spec.Schema {
	out := map[string]*spec.Schema{}
	for _, n := range names {
		out[n] = &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"object"}}}
	}
	return out
}

// v3Document is the whole OpenAPI 3.0 document of one group version,
// with stub definitions for whatever its paths refer to.
func v3Document(t *testing.T, gv schema.GroupVersion, resources []Resource) []byte {
	t.Helper()
	p := Build(gv, resources)
	paths, err := json.Marshal(p.V3)
	if err != nil {
		t.Fatal(err)
	}
	names := refs(t, paths, "#/components/schemas/")
	known := declared(resources, p)
	for _, n := range names {
		if !known[n] {
			t.Errorf("%s refers to %s, which is neither a resource's definition nor in Paths.Types", gv, n)
		}
	}
	doc, err := json.Marshal(&spec3.OpenAPI{
		Version:    "3.0.0",
		Info:       &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes", Version: "test"}},
		Paths:      &spec3.Paths{Paths: p.V3},
		Components: &spec3.Components{Schemas: stubs(names)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// v2Document is the swagger 2.0 document of the same.
func v2Document(t *testing.T, gv schema.GroupVersion, resources []Resource) []byte {
	t.Helper()
	p := Build(gv, resources)
	paths, err := json.Marshal(p.V2)
	if err != nil {
		t.Fatal(err)
	}
	names := refs(t, paths, "#/definitions/")
	known := declared(resources, p)
	defs := spec.Definitions{}
	for n, s := range stubs(names) {
		if !known[n] {
			t.Errorf("%s refers to %s, which is neither a resource's definition nor in Paths.Types", gv, n)
		}
		defs[n] = *s
	}
	doc, err := json.Marshal(&spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Swagger:     "2.0",
		Info:        &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes", Version: "test"}},
		Paths:       &spec.Paths{Paths: p.V2},
		Definitions: defs,
	}})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

var documentCases = []struct {
	name      string
	gv        schema.GroupVersion
	resources func() []Resource
}{
	{"apps/v1", appsV1, appsResources},
	{"core/v1", coreV1, coreResources},
	{"rbac/v1", rbacV1, rbacResources},
}

func TestDocumentsParse(t *testing.T) {
	for _, tt := range documentCases {
		t.Run(tt.name, func(t *testing.T) {
			v3, err := openapi_v3.ParseDocument(v3Document(t, tt.gv, tt.resources()))
			if err != nil {
				t.Fatalf("v3 document does not parse: %v", err)
			}
			if got := len(v3.GetPaths().GetPath()); got < 2 {
				t.Errorf("v3 document has %d paths", got)
			}
			v2, err := openapi_v2.ParseDocument(v2Document(t, tt.gv, tt.resources()))
			if err != nil {
				t.Fatalf("v2 document does not parse: %v", err)
			}
			if got := len(v2.GetPaths().GetPath()); got < 2 {
				t.Errorf("v2 document has %d paths", got)
			}
		})
	}
}

// TestPathParametersDeclared: every {param} of a path is a path
// parameter of each of its operations, which OpenAPI requires.
func TestPathParametersDeclared(t *testing.T) {
	for _, tt := range documentCases {
		for key, op := range v3Ops(Build(tt.gv, tt.resources()).V3) {
			_, path, _ := strings.Cut(key, " ")
			for _, seg := range strings.Split(path, "/") {
				if strings.HasPrefix(seg, "{") && !slices.Contains(op.params, "path:"+strings.Trim(seg, "{}")) {
					t.Errorf("%s: %s is not declared in %v", key, seg, op.params)
				}
			}
			for _, p := range op.params {
				if name, ok := strings.CutPrefix(p, "path:"); ok && !strings.Contains(path, "{"+name+"}") {
					t.Errorf("%s: path parameter %s is not in the path", key, name)
				}
			}
		}
	}
}
