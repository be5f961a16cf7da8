package filters

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/endpoints/warning"
)

func TestWithWarningRecorder(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    []string
	}{
		{
			name: "dedup and order",
			handler: func(w http.ResponseWriter, r *http.Request) {
				warning.AddWarning(r.Context(), "", "first")
				warning.AddWarning(r.Context(), "", "second \"quoted\"")
				warning.AddWarning(r.Context(), "kapi", "first")
				warning.AddWarning(r.Context(), "", "")
				w.Write([]byte("body"))
			},
			want: []string{`299 - "first"`, `299 - "second \"quoted\""`},
		},
		{
			name: "agent",
			handler: func(w http.ResponseWriter, r *http.Request) {
				warning.AddWarning(r.Context(), "admission", "careful")
				w.WriteHeader(http.StatusCreated)
			},
			want: []string{`299 admission "careful"`},
		},
		{
			name: "bad agent dropped",
			handler: func(w http.ResponseWriter, r *http.Request) {
				warning.AddWarning(r.Context(), "has space", "careful")
				w.WriteHeader(http.StatusCreated)
			},
		},
		{
			name: "after headers ignored",
			handler: func(w http.ResponseWriter, r *http.Request) {
				warning.AddWarning(r.Context(), "", "early")
				w.WriteHeader(http.StatusOK)
				warning.AddWarning(r.Context(), "", "late")
			},
			want: []string{`299 - "early"`},
		},
		{
			name: "flush sends warnings",
			handler: func(w http.ResponseWriter, r *http.Request) {
				warning.AddWarning(r.Context(), "", "streamed")
				http.NewResponseController(w).Flush()
			},
			want: []string{`299 - "streamed"`},
		},
		{
			name: "truncated over the limit",
			handler: func(w http.ResponseWriter, r *http.Request) {
				for i := range 20 {
					warning.AddWarning(r.Context(), "", string(rune('a'+i))+long)
				}
				w.WriteHeader(http.StatusOK)
			},
			want: func() []string {
				// 20*301 runes > 4096: each is cut to 256 runes, and 16 of
				// them reach the limit.
				var v []string
				for i := range 16 {
					v = append(v, `299 - "`+string(rune('a'+i))+long[:255]+`"`)
				}
				return v
			}(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(WithWarningRecorder(tt.handler), http.MethodGet, "/x")
			if diff := cmp.Diff(tt.want, rec.Header().Values("Warning")); diff != "" {
				t.Errorf("Warning headers (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWarningRecorderConcurrent adds warnings from goroutines while the
// handler responds; run with -race.
func TestWarningRecorderConcurrent(t *testing.T) {
	h := WithWarningRecorder(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() { warning.AddWarning(r.Context(), "", strings.Repeat("w", i+1)) })
		}
		w.WriteHeader(http.StatusOK)
		wg.Wait()
	}))
	rec := do(h, http.MethodGet, "/x")
	if n := len(rec.Header().Values("Warning")); n > 8 {
		t.Errorf("%d warnings, want at most 8", n)
	}
}
