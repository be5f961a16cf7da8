package server

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestVerbosityHandler: PUT sets the level and answers as upstream's klog
// setter; a bad number is 400, other methods 406.
func TestVerbosityHandler(t *testing.T) {
	vb := NewVerbosity(0)
	h := verbosityHandler(vb)
	tests := []struct {
		method, body string
		wantCode     int
		wantBody     string
		wantV        int
		wantLevel    slog.Level
	}{
		{"PUT", "3", 200, "successfully set klog.logging.verbosity to 3\n", 3, slog.LevelInfo},
		{"PUT", "5", 200, "successfully set klog.logging.verbosity to 5\n", 5, slog.LevelDebug},
		{"PUT", "x", 400, "strconv.ParseUint: parsing \"x\": invalid syntax\n", 5, slog.LevelDebug},
		{"GET", "", 406, "unsupported http method\n", 5, slog.LevelDebug},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tt.method, "/debug/flags/v", strings.NewReader(tt.body)))
		if rec.Code != tt.wantCode || rec.Body.String() != tt.wantBody || rec.Header().Get("Content-Type") != "text/plain" {
			t.Errorf("%s %q = %d %q (%s), want %d %q", tt.method, tt.body, rec.Code, rec.Body.String(), rec.Header().Get("Content-Type"), tt.wantCode, tt.wantBody)
		}
		if vb.Get() != tt.wantV || vb.Level() != tt.wantLevel {
			t.Errorf("after %s %q: v=%d level=%v, want %d %v", tt.method, tt.body, vb.Get(), vb.Level(), tt.wantV, tt.wantLevel)
		}
	}
}

// TestProfilingRoutes: --profiling serves the pprof index and named
// profiles and the flags; without it they are not found.
func TestProfilingRoutes(t *testing.T) {
	for _, enabled := range []bool{true, false} {
		c := NewConfig()
		c.EnableProfiling = enabled
		c.Authentication, c.Authorization = nil, nil
		s, err := c.New("test", NewNotFoundDelegate())
		if err != nil {
			t.Fatal(err)
		}
		h := s.PrepareRun().Handler()
		for _, path := range []string{"/debug/pprof/", "/debug/pprof/heap?debug=1", "/debug/pprof/goroutine?debug=1", "/debug/pprof/cmdline", "/debug/flags/"} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
			want := http.StatusOK
			if !enabled {
				want = http.StatusNotFound
			}
			if rec.Code != want {
				t.Errorf("profiling=%v: GET %s = %d, want %d", enabled, path, rec.Code, want)
			}
		}
	}
}
