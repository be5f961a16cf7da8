package filters

import (
	"context"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// drainExemptPrefixes keep answering while the server drains, so probes see
// the real health (readyz reports "shutdown") instead of a 503.
var drainExemptPrefixes = []string{"/healthz", "/livez", "/readyz", "/metrics"}

// WithWaitGroup counts non-long-running requests in wg for graceful
// shutdown. Once wg is draining, new ones get 503 with Retry-After: 1 — the
// client will likely reach another server on retry. Long-running requests
// are not counted; their context ends when wg.StopLongRunning is called.
func WithWaitGroup(next http.Handler, longRunning request.LongRunningRequestCheck, wg *RequestWaitGroup) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, ok := requestInfo(w, r)
		if !ok {
			return
		}
		if longRunning != nil && longRunning(r, info) {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			stop := context.AfterFunc(wg.longRunning, cancel)
			defer stop()
			defer wg.long.track(cancel)()
			next.ServeHTTP(w, r.WithContext(ctx))
			return
		}
		if err := wg.Add(); err != nil {
			if exemptFromRetryAfter(r) {
				next.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Retry-After", "1")
			WriteStatus(w, apierrors.NewServiceUnavailable("apiserver is shutting down"))
			return
		}
		defer wg.Done()
		next.ServeHTTP(w, r)
	})
}

func drainExempt(path string) bool {
	for _, p := range drainExemptPrefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}
