package openapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkBuild is what the server does at start: describe every
// document of the whole scheme and hash it, encoding none. Each
// iteration starts from a fresh scheme and service.
func BenchmarkBuild(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		scheme, err := newInstalledScheme()
		if err != nil {
			b.Fatal(err)
		}
		s := NewService(scheme, Info{})
		resources, storage := schemeResources(scheme)
		for gv, list := range resources {
			s.AddGroupVersion(gv, list, storage[gv])
		}
		b.StartTimer()
		if err := s.Build(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeAll builds and encodes every document (v3 per group
// version, the merged v2), as the first requests for all of them would.
func BenchmarkEncodeAll(b *testing.B) {
	s := sharedSchemeService(b)
	for b.Loop() {
		s.mu.Lock()
		srcs := sortedSources(s.sources)
		s.mu.Unlock()
		for _, src := range srcs {
			if d := s.encodeV3(src, fixedNow); d.err != nil {
				b.Fatal(d.err)
			}
		}
		if d := s.encodeV2(srcs, nil, fixedNow); d.err != nil {
			b.Fatal(d.err)
		}
	}
}

// BenchmarkServe serves documents from memory: it should cost a copy.
func BenchmarkServe(b *testing.B) {
	s := sharedSchemeService(b)
	h := serve(s)
	idx := s.v3.Load()
	apps := serverRelativeURL("apis/apps/v1", idx.docs["apis/apps/v1"].src.hash)
	for _, bb := range []struct {
		name   string
		target string
		header map[string]string
	}{
		{"v3/apis/apps/v1", apps, nil},
		{"v3/apis/apps/v1/protobuf", apps, map[string]string{"Accept": v3Proto}},
		{"v3/apis/apps/v1/not-modified", apps, map[string]string{"If-None-Match": `"` + idx.docs["apis/apps/v1"].src.hash + `"`}},
		{"v3/index", "/openapi/v3", nil},
		{"v2", "/openapi/v2", nil},
		{"v2/gzip", "/openapi/v2", map[string]string{"Accept-Encoding": "gzip"}},
		{"v2/protobuf", "/openapi/v2", map[string]string{"Accept": v2Proto}},
	} {
		b.Run(bb.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, bb.target, nil)
			for k, v := range bb.header {
				req.Header.Set(k, v)
			}
			// warm the lazy forms
			h.ServeHTTP(discard{http.Header{}}, req)
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(discard{http.Header{}}, req)
			}
		})
	}
}

// BenchmarkV2Rebuild is the first /openapi/v2 after a custom resource
// changed: the merged v2 document is encoded again.
func BenchmarkV2Rebuild(b *testing.B) {
	s := newSchemeService(b)
	for b.Loop() {
		updateCronTabs(s, "x")
		if _, err := s.v2.Load().get(); err != nil {
			b.Fatal(err)
		}
	}
}

// discard is a ResponseWriter that drops the body, so benchmarks measure
// the handler rather than a recorder's buffer.
type discard struct{ h http.Header }

func (d discard) Header() http.Header       { return d.h }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}
