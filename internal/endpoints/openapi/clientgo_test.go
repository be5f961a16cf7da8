package openapi

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/openapi"
	"k8s.io/client-go/openapi3"
	"k8s.io/client-go/rest"
	"k8s.io/kube-openapi/pkg/spec3"
)

// TestClientGo loads the documents the way kubectl does: the v3 index and
// group versions through client-go's openapi client and openapi3 root,
// the v2 document as protobuf through discovery.
func TestClientGo(t *testing.T) {
	srv := httptest.NewServer(serve(sharedSchemeService(t)))
	t.Cleanup(srv.Close)
	dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}

	client := openapi.NewClient(dc.RESTClient())
	paths, err := client.Paths()
	if err != nil {
		t.Fatalf("Paths: %v", err)
	}
	apps, ok := paths["apis/apps/v1"]
	if !ok {
		t.Fatalf("Paths lacks apis/apps/v1: %v", paths)
	}
	b, err := apps.Schema("application/json")
	if err != nil {
		t.Fatalf("Schema json: %v", err)
	}
	var doc spec3.OpenAPI
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Components.Schemas["io.k8s.api.apps.v1.Deployment"]; !ok {
		t.Error("apps/v1 document lacks Deployment")
	}
	b, err = apps.Schema(openapi.ContentTypeOpenAPIV3PB)
	if err != nil {
		t.Fatalf("Schema protobuf: %v", err)
	}
	var pb openapi_v3.Document
	if err := proto.Unmarshal(b, &pb); err != nil || pb.GetOpenapi() != "3.0.0" {
		t.Errorf("protobuf document: %v, openapi %q", err, pb.GetOpenapi())
	}

	root := openapi3.NewRoot(client)
	for _, tt := range []struct {
		gv     string
		schema string
	}{
		{"apps/v1", "io.k8s.api.apps.v1.Deployment"},
		{"v1", "io.k8s.api.core.v1.Pod"},
	} {
		gv := mustGV(t, tt.gv)
		s, err := root.GVSpec(gv)
		if err != nil {
			t.Errorf("GVSpec(%s): %v", tt.gv, err)
			continue
		}
		if _, ok := s.Components.Schemas[tt.schema]; !ok {
			t.Errorf("GVSpec(%s) lacks %s", tt.gv, tt.schema)
		}
	}

	v2, err := dc.OpenAPISchema()
	if err != nil {
		t.Fatalf("OpenAPISchema: %v", err)
	}
	if v2.GetSwagger() != "2.0" || len(v2.GetDefinitions().GetAdditionalProperties()) == 0 {
		t.Errorf("v2: swagger %q with %d definitions", v2.GetSwagger(), len(v2.GetDefinitions().GetAdditionalProperties()))
	}
}

func mustGV(t testing.TB, s string) schema.GroupVersion {
	t.Helper()
	gv, err := schema.ParseGroupVersion(s)
	if err != nil {
		t.Fatal(err)
	}
	return gv
}
