package routes

import (
	"strings"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/openapi"
)

// The v3 client kubectl reads /openapi/v3 with, serving our documents.
type fakeOpenAPIClient map[string][]byte

func (c fakeOpenAPIClient) Paths() (map[string]openapi.GroupVersion, error) {
	out := map[string]openapi.GroupVersion{}
	for path, doc := range c {
		out[path] = fakeGroupVersion(doc)
	}
	return out, nil
}

type fakeGroupVersion []byte

func (g fakeGroupVersion) Schema(string) ([]byte, error) { return g, nil }
func (g fakeGroupVersion) ServerRelativeURL() string     { return "" }

// The v2 getter older kubectl logic reads /openapi/v2 with.
type fakeOpenAPIV2 struct{ doc *openapi_v2.Document }

func (f fakeOpenAPIV2) OpenAPISchema() (*openapi_v2.Document, error) { return f.doc, nil }

// TestQueryParamVerifier runs kubectl's own check of server-side field
// validation (cli-runtime's query param verifiers, which look for the
// fieldValidation parameter on the PATCH operation of a kind) against
// our documents.
func TestQueryParamVerifier(t *testing.T) {
	apps := v3Document(t, appsV1, appsResources())
	client := fakeOpenAPIClient{
		"apis/apps/v1": apps,
		"api/v1":       v3Document(t, coreV1, coreResources()),
		// deployments/scale's operations carry autoscaling/v1 Scale,
		// whose document the verifier asks for: serve apps/v1's.
		"apis/autoscaling/v1": apps,
	}
	v3 := resource.NewQueryParamVerifierV3(nil, client, resource.QueryParamFieldValidation)

	v2doc, err := openapi_v2.ParseDocument(v2Document(t, appsV1, append(appsResources(), coreResources()...)))
	if err != nil {
		t.Fatal(err)
	}
	v2 := resource.NewQueryParamVerifier(nil, fakeOpenAPIV2{v2doc}, resource.QueryParamFieldValidation)

	tests := []struct {
		gvk schema.GroupVersionKind
		// want is "" for supported, else a part of the error.
		want string
	}{
		{appsV1.WithKind("Deployment"), ""},
		{coreV1.WithKind("Pod"), ""},
		{coreV1.WithKind("Namespace"), ""},
		{schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, ""},
		// Bindings are created, never patched: no PATCH operation.
		{coreV1.WithKind("Binding"), "not found"},
	}
	for _, tt := range tests {
		t.Run("v3 "+tt.gvk.String(), func(t *testing.T) {
			check(t, v3.HasSupport(tt.gvk), tt.want)
		})
	}
	for _, tt := range tests {
		if tt.want != "" {
			continue // the v2 verifier reports a missing kind differently
		}
		t.Run("v2 "+tt.gvk.String(), func(t *testing.T) {
			check(t, v2.HasSupport(tt.gvk), tt.want)
		})
	}
}

func check(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("fieldValidation not supported: %v", err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("error %v, want one with %q", err, want)
	}
}
