package mux

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// named answers with its name so a test can see which route won.
func named(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, name)
	})
}

func serve(t *testing.T, h http.Handler, path string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Body.String()
}

func TestRouting(t *testing.T) {
	m := NewPathRecorderMux("test", nil)
	m.Handle("/apis", named("apis-exact"))
	m.HandlePrefix("/apis/", named("apis-prefix"))
	m.HandlePrefix("/apis/apps/", named("apps-prefix"))
	m.Handle("/apis/apps/v1", named("apps-v1-exact"))
	m.UnlistedHandle("/hidden", named("hidden"))
	m.NotFoundHandler(named("not-found"))

	tests := []struct {
		path, want string
	}{
		{"/apis", "apis-exact"},
		{"/apis/", "apis-prefix"},
		{"/apis/batch/v1", "apis-prefix"},
		{"/apis/apps/v1", "apps-v1-exact"},
		{"/apis/apps/v1/deployments", "apps-prefix"},
		{"/apis/apps", "apis-prefix"},
		{"/apisx", "not-found"},
		{"/hidden", "hidden"},
		{"/", "not-found"},
	}
	for _, tt := range tests {
		if got := serve(t, m, tt.path); got != tt.want {
			t.Errorf("GET %s served by %q, want %q", tt.path, got, tt.want)
		}
	}

	wantListed := []string{"/apis", "/apis/", "/apis/apps/", "/apis/apps/v1"}
	if diff := cmp.Diff(wantListed, m.ListedPaths()); diff != "" {
		t.Errorf("ListedPaths (-want +got):\n%s", diff)
	}
}

func TestUnregister(t *testing.T) {
	tests := []struct {
		name       string
		unregister string
		path, want string
		listed     []string
	}{
		{"exact", "/a", "/a", "not-found", []string{"/b/"}},
		{"prefix", "/b/", "/b/x", "not-found", []string{"/a"}},
		{"unknown", "/c", "/a", "a", []string{"/a", "/b/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewPathRecorderMux("test", nil)
			m.NotFoundHandler(named("not-found"))
			m.Handle("/a", named("a"))
			m.HandlePrefix("/b/", named("b"))
			m.Unregister(tt.unregister)
			if got := serve(t, m, tt.path); got != tt.want {
				t.Errorf("GET %s served by %q, want %q", tt.path, got, tt.want)
			}
			if diff := cmp.Diff(tt.listed, m.ListedPaths()); diff != "" {
				t.Errorf("ListedPaths (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDuplicateRegistrationReplaces(t *testing.T) {
	m := NewPathRecorderMux("test", nil)
	m.Handle("/a", named("first"))
	m.Handle("/a", named("second"))
	if got := serve(t, m, "/a"); got != "second" {
		t.Errorf("GET /a served by %q, want second", got)
	}
	if diff := cmp.Diff([]string{"/a"}, m.ListedPaths()); diff != "" {
		t.Errorf("ListedPaths (-want +got):\n%s", diff)
	}
}

func TestHandlePrefixWithoutSlashPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("HandlePrefix(\"/apis\") did not panic")
		}
	}()
	NewPathRecorderMux("test", nil).HandlePrefix("/apis", named("x"))
}

func TestDefaultNotFound(t *testing.T) {
	rec := httptest.NewRecorder()
	NewPathRecorderMux("test", nil).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("status = %d, want 404", rec.Code)
	}
}

// TestConcurrentRegistration registers and removes handlers while requests
// are served; run with -race it proves serving needs no lock.
func TestConcurrentRegistration(t *testing.T) {
	m := NewPathRecorderMux("test", nil)
	m.Handle("/stable", named("stable"))
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 200 {
				p := fmt.Sprintf("/apis/g%d-%d/", i, j)
				m.HandlePrefix(p, named(p))
				m.Unregister(p)
			}
		})
		wg.Go(func() {
			for range 200 {
				if got := serve(t, m, "/stable"); got != "stable" {
					t.Errorf("GET /stable served by %q", got)
					return
				}
				_ = m.ListedPaths()
			}
		})
	}
	wg.Wait()
	if diff := cmp.Diff([]string{"/stable"}, m.ListedPaths()); diff != "" {
		t.Errorf("ListedPaths after churn (-want +got):\n%s", diff)
	}
}

// BenchmarkRegisterThenServe registers as many paths as a server does
// before it serves (API groups, health checks of every hook), then
// serves one request.
func BenchmarkRegisterThenServe(b *testing.B) {
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	req := httptest.NewRequest(http.MethodGet, "/healthz/check-99", nil)
	for b.Loop() {
		m := NewPathRecorderMux("bench", nil)
		for i := range 300 {
			m.Handle(fmt.Sprintf("/healthz/check-%d", i), h)
			m.HandlePrefix(fmt.Sprintf("/apis/group-%d/", i), h)
		}
		m.ServeHTTP(httptest.NewRecorder(), req)
	}
}
