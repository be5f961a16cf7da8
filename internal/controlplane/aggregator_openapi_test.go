package controlplane

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	apiregistrationlisters "k8s.io/kube-aggregator/pkg/client/listers/apiregistration/v1"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi"
	"github.com/kapi-dev/kapi/internal/server/mux"
)

// openAPIServer serves an aggregated server's /openapi/v2 with an ETag,
// or nothing (404) when gone is set.
type openAPIServer struct {
	mu        sync.Mutex
	gone      bool
	downloads int
	notMod    int
}

func (o *openAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.gone || r.URL.Path != "/openapi/v2" {
		http.NotFound(w, r)
		return
	}
	if r.Header.Get("If-None-Match") == `"v1"` {
		o.notMod++
		w.WriteHeader(http.StatusNotModified)
		return
	}
	o.downloads++
	w.Header().Set("ETag", `"v1"`)
	w.Write([]byte(`{"swagger":"2.0","info":{"title":"wardle","version":"v0"},"paths":{` +
		`"/apis/wardle.example.com/v1alpha1/flunders":{"get":{"operationId":"listFlunders","responses":{"200":{"description":"OK"}}}},` +
		`"/apis/other.example.com/v1/things":{"get":{"operationId":"listThings","responses":{"200":{"description":"OK"}}}}}}`))
}

// TestRemoteOpenAPIV2 pins upstream's v2 download of an aggregated
// server: as system:kube-aggregator through the proxy, revalidated with
// its ETag (304 keeps the document), filtered to the APIService's group
// version, and taken out when the server stops serving it (404).
func TestRemoteOpenAPIV2(t *testing.T) {
	remote := &openAPIServer{}
	srv := httptest.NewTLSServer(remote)
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	svc := wardleAPIService(true)
	if err := indexer.Add(svc); err != nil {
		t.Fatal(err)
	}
	service := openapi.NewService(runtime.NewScheme(), openapi.Info{})
	m := mux.NewPathRecorderMux("test", nil)
	service.Install(m)
	o := &remoteOpenAPI{
		service: service, lister: apiregistrationlisters.NewAPIServiceLister(indexer), etags: &etagCache{m: map[string]string{}},
		proxies: &proxyCache{resolver: fixedResolver{url: u}, logger: slog.New(slog.DiscardHandler)},
		queue:   newDiscoveryQueue(),
	}
	defer o.queue.ShutDown()
	paths := func() map[string]spec.PathItem {
		rec := httptest.NewRecorder()
		m.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi/v2", nil))
		var doc spec.Swagger
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
			t.Fatalf("%s: %v", rec.Body, err)
		}
		if doc.Paths == nil {
			return nil
		}
		return doc.Paths.Paths
	}
	for range 2 {
		if err := o.sync(t.Context(), svc.Name); err != nil {
			t.Fatal(err)
		}
	}
	got := paths()
	if _, ok := got["/apis/wardle.example.com/v1alpha1/flunders"]; !ok {
		t.Errorf("remote path missing: %v", got)
	}
	for p := range got {
		if strings.HasPrefix(p, "/apis/other.example.com") {
			t.Errorf("path %s of another group version merged", p)
		}
	}
	if remote.downloads != 1 || remote.notMod != 1 {
		t.Errorf("downloads %d, 304s %d; want 1 and 1", remote.downloads, remote.notMod)
	}

	remote.mu.Lock()
	remote.gone = true
	remote.mu.Unlock()
	if err := o.sync(t.Context(), svc.Name); err != nil {
		t.Fatal(err)
	}
	if _, ok := paths()["/apis/wardle.example.com/v1alpha1/flunders"]; ok {
		t.Error("the path stayed after the server stopped serving /openapi/v2")
	}
}
