package openapi

import (
	"bytes"
	"net/http"
	"reflect"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/routes"
)

// TestDocumentsBuiltOnDemand checks that Build encodes nothing and that
// each document is encoded once, on its first request, however many ask.
func TestDocumentsBuiltOnDemand(t *testing.T) {
	s := newSmallService(t)
	h := serve(s)
	wantEncodes := func(step string, want int64) {
		t.Helper()
		if got := s.encodes.Load(); got != want {
			t.Fatalf("%s: %d documents encoded, want %d", step, got, want)
		}
	}
	wantEncodes("after Build", 0)

	idx, _ := index(t, h)
	wantEncodes("after the index", 0)
	apps := idx.Paths["apis/apps/v1"].ServerRelativeURL
	if rec := get(t, h, http.MethodGet, "/openapi/v3/apis/apps/v1?hash=stale", nil); rec.Code != http.StatusMovedPermanently {
		t.Fatalf("stale hash: status %d", rec.Code)
	}
	wantEncodes("after a redirect", 0)

	const readers = 8
	bodies := make([][]byte, readers)
	var wg sync.WaitGroup
	for i := range readers {
		wg.Go(func() { bodies[i] = get(t, h, http.MethodGet, apps, nil).Body.Bytes() })
	}
	wg.Wait()
	wantEncodes("after concurrent first requests", 1)
	for i, b := range bodies {
		if len(b) == 0 || !bytes.Equal(b, bodies[0]) {
			t.Errorf("reader %d got %d bytes, reader 0 %d", i, len(b), len(bodies[0]))
		}
	}
	get(t, h, http.MethodGet, apps, map[string]string{"Accept": v3Proto})
	wantEncodes("after the protobuf form", 1)

	for range 2 {
		if rec := get(t, h, http.MethodGet, "/openapi/v2", nil); rec.Code != 200 {
			t.Fatalf("v2: status %d", rec.Code)
		}
	}
	wantEncodes("after v2 twice", 2)

	// Re-describing the same content keeps every encoding.
	if err := s.Build(); err != nil {
		t.Fatal(err)
	}
	get(t, h, http.MethodGet, apps, nil)
	get(t, h, http.MethodGet, "/openapi/v2", nil)
	wantEncodes("after a second Build", 2)
}

// TestHashesAreOfContent checks the assumption the hashes rest on: a
// document is a function of what is hashed. Two services built alike
// announce the same hashes and encode the same bytes; another Info
// changes every hash.
func TestHashesAreOfContent(t *testing.T) {
	a, b := newSmallService(t), newSmallService(t)
	ia, ib := a.v3.Load(), b.v3.Load()
	if !bytes.Equal(ia.index.json, ib.index.json) {
		t.Errorf("indexes differ:\n%s\n%s", ia.index.json, ib.index.json)
	}
	for key, da := range ia.docs {
		ea, eb := da.get(), ib.docs[key].get()
		if ea.err != nil || eb.err != nil {
			t.Fatalf("%s: %v, %v", key, ea.err, eb.err)
		}
		if !bytes.Equal(ea.json, eb.json) {
			t.Errorf("%s: same hash, different documents", key)
		}
		if ea.etag != da.src.hash {
			t.Errorf("%s: ETag %s, want the announced hash %s", key, ea.etag, da.src.hash)
		}
	}

	other := NewService(a.scheme, Info{Title: "Kubernetes", Version: "v1.38.0"})
	for gv, in := range a.groups {
		other.AddGroupVersion(gv, in.resources, in.storage)
	}
	if err := other.Build(); err != nil {
		t.Fatal(err)
	}
	for key, d := range other.v3.Load().docs {
		if d.src.hash == ia.docs[key].src.hash {
			t.Errorf("%s: hash unchanged by another server version", key)
		}
	}
}

// TestSourceHash checks that every field of a resource, the Go types
// included, is part of its group version's hash.
func TestSourceHash(t *testing.T) {
	s := NewService(newSchemeOrFatal(t), Info{})
	base := routes.Resource{
		GroupVersion: coreV1,
		APIResource:  metav1.APIResource{Name: "pods/exec", Kind: "PodExecOptions", Namespaced: true, Verbs: []string{"create", "get"}},
		Kind:         coreV1.WithKind("PodExecOptions"),
		Object:       "io.k8s.api.core.v1.PodExecOptions",
	}
	hash := func(r routes.Resource) string {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.groupSourceLocked(coreV1, []routes.Resource{r}, nil, nil, nil).hash
	}
	tests := []struct {
		name   string
		change func(r *routes.Resource)
	}{
		{"connect options", func(r *routes.Resource) { r.ConnectOptions = reflect.TypeFor[corev1.PodExecOptions]() }},
		{"other connect options", func(r *routes.Resource) { r.ConnectOptions = reflect.TypeFor[corev1.PodAttachOptions]() }},
		{"get options", func(r *routes.Resource) { r.GetOptions = reflect.TypeFor[corev1.PodLogOptions]() }},
		{"connect methods", func(r *routes.Resource) { r.ConnectMethods = []string{"GET"} }},
		{"patch types", func(r *routes.Resource) { r.PatchTypes = []string{"application/merge-patch+json"} }},
		{"delete returns object", func(r *routes.Resource) { r.DeleteReturnsObject = true }},
		{"verbs", func(r *routes.Resource) { r.APIResource.Verbs = []string{"get"} }},
	}
	want := hash(base)
	if got := hash(base); got != want {
		t.Fatalf("same resource, hashes %s and %s", got, want)
	}
	seen := map[string]string{want: "unchanged"}
	for _, tt := range tests {
		r := base
		tt.change(&r)
		got := hash(r)
		if prev, ok := seen[got]; ok {
			t.Errorf("%s: same hash as %s", tt.name, prev)
		}
		seen[got] = tt.name
	}
}

func TestUpdateWithSameContentKeepsDocument(t *testing.T) {
	s := newSmallService(t)
	updateCronTabs(s, "same")
	before := s.v3.Load()
	doc := before.docs[keyOf(stableV1)].get()
	updateCronTabs(s, "same")
	after := s.v3.Load()
	if after != before {
		t.Error("a new snapshot for unchanged content")
	}
	if got := after.docs[keyOf(stableV1)].get(); got != doc {
		t.Error("the document was encoded again")
	}
}

func TestTypeConverterBuiltOnce(t *testing.T) {
	s := NewService(newSchemeOrFatal(t), Info{})
	first, err := s.TypeConverter()
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.TypeConverter()
	if err != nil {
		t.Fatal(err)
	}
	if first == nil || first != second {
		t.Errorf("TypeConverter returned %p then %p, want one converter", first, second)
	}
	if s.encodes.Load() != 0 {
		t.Error("the type converter encoded a document")
	}
}

func newSchemeOrFatal(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme, err := newInstalledScheme()
	if err != nil {
		t.Fatal(err)
	}
	return scheme
}
