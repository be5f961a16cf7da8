package openapi

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"github.com/google/go-cmp/cmp"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// TestDocumentsParse checks that the documents of the whole scheme are
// valid for gnostic, which kubectl and client-go parse them with.
func TestDocumentsParse(t *testing.T) {
	s := sharedSchemeService(t)
	v2, err := s.v2.Load().get()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openapi_v2.ParseDocument(v2.json); err != nil {
		t.Errorf("v2: %v", err)
	}
	for key, d := range s.v3.Load().docs {
		if _, err := openapi_v3.ParseDocument(d.get().json); err != nil {
			t.Errorf("v3 %s: %v", key, err)
		}
	}
}

func TestV2Document(t *testing.T) {
	s := sharedSchemeService(t)
	d, _ := s.v2.Load().get()
	var doc spec.Swagger
	if err := json.Unmarshal(d.json, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Swagger != "2.0" || doc.Info.Title != "Kubernetes" || doc.Info.Version != "v1.37.2" {
		t.Errorf("swagger %q, info %+v", doc.Swagger, doc.Info.InfoProps)
	}
	bearer := doc.SecurityDefinitions["BearerToken"]
	if bearer == nil || bearer.Type != "apiKey" || bearer.In != "header" || bearer.Name != "authorization" {
		t.Errorf("securityDefinitions %+v, want the BearerToken apiKey in the authorization header", doc.SecurityDefinitions)
	}
	if diff := cmp.Diff([]map[string][]string{{"BearerToken": {}}}, doc.Security); diff != "" {
		t.Errorf("security (-want +got):\n%s", diff)
	}
	for path, op := range map[string]string{
		"/api/":                            "getCoreAPIVersions",
		"/apis/":                           "getAPIVersions",
		"/apis/apps/":                      "getAppsAPIGroup",
		"/apis/rbac.authorization.k8s.io/": "getRbacAuthorizationAPIGroup",
		"/version/":                        "getCodeVersion",
	} {
		item, ok := doc.Paths.Paths[path]
		if !ok || item.Get == nil || item.Get.ID != op {
			t.Errorf("path %s: want GET %s, got %+v", path, op, item.Get)
		}
	}
	for _, name := range []string{
		"io.k8s.api.apps.v1.Deployment", "io.k8s.api.apps.v1.DeploymentList",
		"io.k8s.api.autoscaling.v1.Scale", "io.k8s.api.core.v1.Pod",
		"io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList", "io.k8s.apimachinery.pkg.version.Info",
	} {
		if _, ok := doc.Definitions[name]; !ok {
			t.Errorf("definitions lack %s", name)
		}
	}
	// upstream prunes defaults from v2
	var generic any
	if err := json.Unmarshal(d.json, &generic); err != nil {
		t.Fatal(err)
	}
	if path := findDefault(generic, ""); path != "" {
		t.Errorf("the v2 document has a default at %s", path)
	}
}

// findDefault returns the path of a "default" keyword in a JSON document,
// skipping properties that happen to be named default.
func findDefault(v any, path string) string {
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			if k == "default" && !strings.HasSuffix(path, "/properties") {
				return path + "/default"
			}
			if p := findDefault(child, path+"/"+k); p != "" {
				return p
			}
		}
	case []any:
		for _, child := range v {
			if p := findDefault(child, path+"/[]"); p != "" {
				return p
			}
		}
	}
	return ""
}

func TestV3Documents(t *testing.T) {
	s := sharedSchemeService(t)
	docs := s.v3.Load().docs
	tests := []struct {
		key      string
		path     string
		schemas  []string
		notThere []string
	}{
		{key: "apis/apps/v1", path: "/apis/apps/v1/", schemas: []string{"io.k8s.api.apps.v1.Deployment", "io.k8s.api.autoscaling.v1.Scale"}, notThere: []string{"io.k8s.api.core.v1.Service"}},
		{key: "api/v1", path: "/api/v1/", schemas: []string{"io.k8s.api.core.v1.Pod", "io.k8s.api.core.v1.PodExecOptions"}, notThere: []string{"io.k8s.api.apps.v1.Deployment"}},
		{key: "api", path: "/api/", schemas: []string{"io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions"}},
		{key: "apis", path: "/apis/", schemas: []string{"io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList"}},
		{key: "apis/apps", path: "/apis/apps/", schemas: []string{"io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup"}},
		{key: "version", path: "/version/", schemas: []string{"io.k8s.apimachinery.pkg.version.Info"}},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			d, ok := docs[tt.key]
			if !ok {
				t.Fatalf("no document %q", tt.key)
			}
			var doc spec3.OpenAPI
			if err := json.Unmarshal(d.get().json, &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Version != "3.0.0" || doc.Info.Title != "Kubernetes" {
				t.Errorf("openapi %q, info %+v", doc.Version, doc.Info.InfoProps)
			}
			if _, ok := doc.Paths.Paths[tt.path]; !ok {
				t.Errorf("no path %s", tt.path)
			}
			for _, name := range tt.schemas {
				if _, ok := doc.Components.Schemas[name]; !ok {
					t.Errorf("no schema %s", name)
				}
			}
			for _, name := range tt.notThere {
				if _, ok := doc.Components.Schemas[name]; ok {
					t.Errorf("schema %s belongs to another document", name)
				}
			}
			if ss := doc.Components.SecuritySchemes["BearerToken"]; ss == nil || ss.Type != "apiKey" {
				t.Errorf("securitySchemes %+v", doc.Components.SecuritySchemes)
			}
		})
	}
}

func TestWithoutDefaults(t *testing.T) {
	leaf := func(def any) spec.Schema {
		s := *spec.StringProperty()
		s.Default = def
		return s
	}
	ptr := func(s spec.Schema) *spec.Schema { return &s }
	in := spec.Schema{SchemaProps: spec.SchemaProps{
		Default:              map[string]any{},
		Properties:           map[string]spec.Schema{"a": leaf("x")},
		PatternProperties:    map[string]spec.Schema{"^b": leaf("y")},
		Definitions:          spec.Definitions{"c": leaf("z")},
		AllOf:                []spec.Schema{leaf("1")},
		AnyOf:                []spec.Schema{leaf("2")},
		OneOf:                []spec.Schema{leaf("3")},
		Not:                  ptr(leaf("4")),
		Items:                &spec.SchemaOrArray{Schema: ptr(leaf("5")), Schemas: []spec.Schema{leaf("6")}},
		AdditionalProperties: &spec.SchemaOrBool{Allows: true, Schema: ptr(leaf("7"))},
		AdditionalItems:      &spec.SchemaOrBool{Allows: true, Schema: ptr(leaf("8"))},
		Dependencies:         spec.Dependencies{"d": {Schema: ptr(leaf("9")), Property: []string{"p"}}},
	}}
	before, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := withoutDefaults(in)
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "default") {
		t.Errorf("defaults left: %s", b)
	}
	for _, keep := range []string{`"^b"`, `"additionalProperties"`, `"dependencies"`, `"p"`, `"allOf"`} {
		if !strings.Contains(string(b), keep) {
			t.Errorf("%s lost: %s", keep, b)
		}
	}
	after, _ := json.Marshal(in)
	if string(before) != string(after) {
		t.Errorf("the input changed:\n%s\n%s", before, after)
	}
}

func TestScopeGVKs(t *testing.T) {
	gvk := func(g, v, k string) map[string]any { return map[string]any{"group": g, "version": v, "kind": k} }
	watchEvent := "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"
	deployment := "io.k8s.api.apps.v1.Deployment"
	withGVKs := func(gvks ...map[string]any) *spec.Schema {
		s := spec.MapProperty(nil)
		l := make([]any, len(gvks))
		for i, g := range gvks {
			l[i] = g
		}
		s.AddExtension(extensionGVK, l)
		return s
	}
	tests := []struct {
		name   string
		schema string
		in     *spec.Schema
		want   []any
	}{
		{
			name: "cross-registered narrowed", schema: watchEvent,
			in:   withGVKs(gvk("", "v1", "WatchEvent"), gvk("apps", "v1", "WatchEvent"), gvk("batch", "v1", "WatchEvent"), gvk("apps", "v1beta1", "WatchEvent")),
			want: []any{gvk("", "v1", "WatchEvent"), gvk("apps", "v1", "WatchEvent")},
		},
		{
			name: "other kinds untouched", schema: deployment,
			in:   withGVKs(gvk("apps", "v1", "Deployment"), gvk("batch", "v1", "Deployment")),
			want: []any{gvk("apps", "v1", "Deployment"), gvk("batch", "v1", "Deployment")},
		},
		{
			name: "nothing left drops the extension", schema: watchEvent,
			in:   withGVKs(gvk("batch", "v1", "WatchEvent"), gvk("policy", "v1", "WatchEvent")),
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := tt.in.Extensions[extensionGVK]
			schemas := map[string]*spec.Schema{tt.schema: tt.in}
			scopeGVKs(schemas, "apps", "v1")
			got, _ := schemas[tt.schema].Extensions[extensionGVK].([]any)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("kinds (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(orig, tt.in.Extensions[extensionGVK]); diff != "" {
				t.Errorf("the builder's schema changed:\n%s", diff)
			}
		})
	}
}

func TestCamel(t *testing.T) {
	tests := []struct {
		in         string
		upperFirst bool
		want       string
	}{
		{"apps", true, "Apps"},
		{"apps", false, "apps"},
		{"rbac.authorization", true, "RbacAuthorization"},
		{"rbac.authorization", false, "rbacAuthorization"},
		{"flowcontrol.apiserver", false, "flowcontrolApiserver"},
		{"example-group.io", true, "ExampleGroupIo"},
	}
	for _, tt := range tests {
		if got := camel(tt.in, tt.upperFirst); got != tt.want {
			t.Errorf("camel(%q, %v) = %q, want %q", tt.in, tt.upperFirst, got, tt.want)
		}
	}
}

func TestRootRoutes(t *testing.T) {
	keys := func(rs []rootRoute) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.key)
		}
		return out
	}
	if got, want := keys(rootRoutes(true, []string{"apps", "batch"})), []string{"api", "apis", "apis/apps", "apis/batch", "version"}; !slices.Equal(got, want) {
		t.Errorf("with core: %v, want %v", got, want)
	}
	if got, want := keys(rootRoutes(false, nil)), []string{"apis", "version"}; !slices.Equal(got, want) {
		t.Errorf("without core: %v, want %v", got, want)
	}
}
