package openapi

import (
	"encoding/json"
	"net/http"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// wardleV2 is an aggregated server's v2 document: one path of its group
// version, one outside it, a definition of its own and one whose name
// the local document has with another schema.
const wardleV2 = `{"swagger":"2.0","info":{"title":"wardle","version":"v0"},"paths":{
"/apis/wardle.example.com/v1alpha1/flunders":{"get":{"operationId":"listFlunders","responses":{"200":{"description":"OK","schema":{"$ref":"#/definitions/com.example.wardle.v1alpha1.FlunderList"}}}}},
"/apis/wardle.example.com/v1alpha1/status":{"get":{"operationId":"getStatus","responses":{"200":{"description":"OK","schema":{"$ref":"#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Status"}}}}},
"/apis/wardle.example.com/":{"get":{"operationId":"getWardleGroup","responses":{"200":{"description":"OK"}}}}},
"definitions":{
"com.example.wardle.v1alpha1.FlunderList":{"type":"object","properties":{"items":{"type":"array","items":{"type":"string"}}}},
"io.k8s.apimachinery.pkg.apis.meta.v1.Status":{"type":"object","description":"a different Status","properties":{"x":{"type":"string"}}}}}`

// TestRemoteV2 pins how an aggregated server's v2 document joins the
// server's: filtered to its group version's paths (upstream keeps
// /apis/<group>/<version>/ and what they use), merged with upstream's
// kube-openapi merge (a conflicting definition is renamed, the local one
// kept), the document's ETag changing with it and back on removal.
func TestRemoteV2(t *testing.T) {
	s := newSmallService(t)
	h := serve(s)
	before := get(t, h, http.MethodGet, "/openapi/v2", nil)

	var remote spec.Swagger
	if err := remote.UnmarshalJSON([]byte(wardleV2)); err != nil {
		t.Fatal(err)
	}
	filtered, err := FilterV2(&remote, "wardle.example.com", "v1alpha1").MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	s.SetRemoteV2(RemoteV2{Name: "v1alpha1.wardle.example.com", Group: "wardle.example.com", GroupPriority: 1000, VersionPriority: 15, JSON: filtered, Version: "1"})
	after := get(t, h, http.MethodGet, "/openapi/v2", nil)
	if after.Header().Get("Etag") == before.Header().Get("Etag") {
		t.Error("the ETag did not change with a remote document")
	}
	var doc spec.Swagger
	if err := json.Unmarshal(after.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Paths.Paths["/apis/wardle.example.com/v1alpha1/flunders"]; !ok {
		t.Error("remote path missing")
	}
	if _, ok := doc.Paths.Paths["/apis/wardle.example.com/"]; ok {
		t.Error("a remote path outside its group version was merged")
	}
	if _, ok := doc.Definitions["com.example.wardle.v1alpha1.FlunderList"]; !ok {
		t.Error("remote definition missing")
	}
	if d := doc.Definitions["io.k8s.apimachinery.pkg.apis.meta.v1.Status"]; d.Description == "a different Status" {
		t.Error("the remote definition replaced the local one")
	}
	ref := doc.Paths.Paths["/apis/wardle.example.com/v1alpha1/status"].Get.Responses.StatusCodeResponses[200].Schema.Ref.String()
	if ref == "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Status" {
		t.Errorf("the remote path refers to the local Status: %s", ref)
	}

	s.RemoveRemoteV2("v1alpha1.wardle.example.com")
	if got := get(t, h, http.MethodGet, "/openapi/v2", nil); got.Header().Get("Etag") != before.Header().Get("Etag") {
		t.Error("removing the remote document did not restore the local one")
	}
}

// TestRemoteV3 pins upstream's proxying of an aggregated server's v3
// documents: its index entries join the index (a local key wins), and
// /openapi/v3/<key> of a remote key goes to its handler, query and all.
func TestRemoteV3(t *testing.T) {
	s := newSmallService(t)
	h := serve(s)
	var proxied []string
	remote := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied = append(proxied, r.URL.String())
		w.Write([]byte(`{"openapi":"3.0.0"}`))
	})
	s.SetRemoteV3("v1alpha1.wardle.example.com", map[string]string{
		"apis/wardle.example.com/v1alpha1": "/openapi/v3/apis/wardle.example.com/v1alpha1?hash=ABC",
		"version":                          "/openapi/v3/version?hash=REMOTE",
	}, remote)
	idx, _ := index(t, h)
	if got := idx.Paths["apis/wardle.example.com/v1alpha1"].ServerRelativeURL; got != "/openapi/v3/apis/wardle.example.com/v1alpha1?hash=ABC" {
		t.Errorf("remote index entry %q", got)
	}
	if got := idx.Paths["version"].ServerRelativeURL; got == "/openapi/v3/version?hash=REMOTE" {
		t.Error("a remote key replaced a local one")
	}
	rec := get(t, h, http.MethodGet, "/openapi/v3/apis/wardle.example.com/v1alpha1?hash=ABC", nil)
	if rec.Code != 200 || len(proxied) != 1 || proxied[0] != "/openapi/v3/apis/wardle.example.com/v1alpha1?hash=ABC" {
		t.Errorf("remote document: %d, proxied %v", rec.Code, proxied)
	}
	if rec := get(t, h, http.MethodGet, "/openapi/v3/version", nil); rec.Code != 200 || len(proxied) != 1 {
		t.Errorf("local document: %d, proxied %v", rec.Code, proxied)
	}

	s.RemoveRemoteV3("v1alpha1.wardle.example.com")
	idx, _ = index(t, h)
	if _, ok := idx.Paths["apis/wardle.example.com/v1alpha1"]; ok {
		t.Error("remote entry left after removal")
	}
	if rec := get(t, h, http.MethodGet, "/openapi/v3/apis/wardle.example.com/v1alpha1", nil); rec.Code != http.StatusNotFound {
		t.Errorf("after removal: %d, want 404", rec.Code)
	}
}
