package filters

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

type fixedVerbosity int

func (v fixedVerbosity) Enabled(n int) bool { return int(v) >= n }

// TestHTTPLogging: at -v=3 one "HTTP" line per request with upstream's
// httplog fields; below 3 nothing.
func TestHTTPLogging(t *testing.T) {
	tests := []struct {
		name, method, url, contentType string
		v                              int
		wantVerb                       string
		wantCode                       float64
	}{
		{"list", "GET", "/api/v1/namespaces/default/pods?limit=5", "", 3, "LIST", 200},
		{"get", "GET", "/api/v1/namespaces/default/pods/p", "", 3, "GET", 200},
		{"watch", "GET", "/api/v1/pods?watch=true", "", 4, "WATCH", 200},
		{"apply", "PATCH", "/api/v1/namespaces/default/pods/p", "application/apply-patch+yaml", 3, "APPLY", 404},
		{"quiet below 3", "GET", "/api/v1/pods", "", 2, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			logger := slog.New(slog.NewJSONHandler(&buf, nil))
			inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == "PATCH" {
					w.WriteHeader(http.StatusNotFound)
					return
				}
				w.Write([]byte("ok"))
			})
			h := WithRequestID(withInfo(WithHTTPLogging(inner, logger, fixedVerbosity(tt.v))))
			req := httptest.NewRequest(tt.method, tt.url, nil)
			req.Header.Set("User-Agent", "kubectl/v1.37")
			req.Header.Set("Audit-Id", "the-id")
			req.Header.Set("Content-Type", tt.contentType)
			req.RemoteAddr = "10.1.2.3:4567"
			h.ServeHTTP(httptest.NewRecorder(), req)
			if tt.wantVerb == "" {
				if buf.Len() != 0 {
					t.Errorf("logged at -v=%d: %s", tt.v, buf.String())
				}
				return
			}
			var line map[string]any
			if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
				t.Fatalf("log %q: %v", buf.String(), err)
			}
			want := map[string]any{"msg": "HTTP", "verb": tt.wantVerb, "URI": tt.url, "userAgent": "kubectl/v1.37",
				"audit-ID": "the-id", "srcIP": "10.1.2.3:4567", "resp": tt.wantCode}
			for k, v := range want {
				if line[k] != v {
					t.Errorf("%s = %v, want %v", k, line[k], v)
				}
			}
			if _, ok := line["latency"]; !ok {
				t.Errorf("no latency in %v", line)
			}
		})
	}
}

// BenchmarkHTTPLogging: the filter's cost per request when the level is
// below 3 (the default) and when it logs (to a discarding JSON handler).
func BenchmarkHTTPLogging(b *testing.B) {
	for _, v := range []int{0, 3} {
		b.Run(fmt.Sprintf("v=%d", v), func(b *testing.B) {
			h := withInfo(WithHTTPLogging(ok, slog.New(slog.NewJSONHandler(io.Discard, nil)), fixedVerbosity(v)))
			req := httptest.NewRequest("GET", "/api/v1/namespaces/default/pods", nil)
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}
