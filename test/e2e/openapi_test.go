package e2e

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/openapi3"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// TestOpenAPIClients loads the documents the way clients do: client-go's
// discovery (v2, protobuf) and its OpenAPI v3 root, and checks each v3
// document is valid OpenAPI 3.0 by parsing it with gnostic.
func TestOpenAPIClients(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	dc, err := discovery.NewDiscoveryClientForConfig(k.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}

	v2, err := dc.OpenAPISchema()
	if err != nil {
		t.Fatalf("OpenAPI v2 (protobuf): %v", err)
	}
	if !hasDefinition(v2.GetDefinitions().GetAdditionalProperties(), "io.k8s.api.apps.v1.Deployment") {
		t.Error("the v2 document has no io.k8s.api.apps.v1.Deployment")
	}

	root := openapi3.NewRoot(dc.OpenAPIV3())
	gvs, err := root.GroupVersions()
	if err != nil {
		t.Fatalf("OpenAPI v3 index: %v", err)
	}
	for _, want := range []schema.GroupVersion{{Version: "v1"}, {Group: "apps", Version: "v1"}, {Group: "rbac.authorization.k8s.io", Version: "v1"}} {
		if !slices.Contains(gvs, want) {
			t.Errorf("the v3 index lacks %s: %v", want, gvs)
		}
	}
	apps, err := root.GVSpec(schema.GroupVersion{Group: "apps", Version: "v1"})
	if err != nil {
		t.Fatalf("apps/v1 document: %v", err)
	}
	deployment, ok := apps.Components.Schemas["io.k8s.api.apps.v1.Deployment"]
	if !ok || !strings.Contains(deployment.Description, "Deployment enables declarative updates") {
		t.Errorf("apps/v1 Deployment schema missing or undocumented: %+v", deployment)
	}

	paths, err := dc.OpenAPIV3().Paths()
	if err != nil {
		t.Fatal(err)
	}
	for name, gv := range paths {
		if !strings.HasPrefix(name, "api") {
			continue
		}
		raw, err := gv.Schema("application/json")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if _, err := openapi_v3.ParseDocument(raw); err != nil {
			t.Errorf("%s is not valid OpenAPI 3.0: %v", name, err)
		}
	}
}

func hasDefinition(props []*openapi_v2.NamedSchema, name string) bool {
	for _, p := range props {
		if p.GetName() == name {
			return true
		}
	}
	return false
}

// TestOpenAPICaching: documents carry an ETag that answers 304, and the
// v3 index links each document by hash, served as immutable.
func TestOpenAPICaching(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	client, err := rest.HTTPClientFor(k.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string, header ...string) *http.Response {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, k.URL()+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}

	v2 := get("/openapi/v2", "Accept", "application/json")
	etag := v2.Header.Get("ETag")
	if v2.StatusCode != http.StatusOK || etag == "" {
		t.Fatalf("/openapi/v2: %d, ETag %q", v2.StatusCode, etag)
	}
	if resp := get("/openapi/v2", "Accept", "application/json", "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
		t.Errorf("/openapi/v2 with If-None-Match: %d, want 304", resp.StatusCode)
	}

	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.NewDecoder(get("/openapi/v3").Body).Decode(&index); err != nil {
		t.Fatal(err)
	}
	url := index.Paths["apis/apps/v1"].ServerRelativeURL
	if !strings.Contains(url, "?hash=") {
		t.Fatalf("index entry of apps/v1 = %q, want a hash", url)
	}
	resp := get(url)
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("%s: %d, Cache-Control %q", url, resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	if resp := get("/openapi/v3/apis/nosuch.group/v1"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown group version: %d, want 404", resp.StatusCode)
	}
}
