package filters

import "net/http"

// WithCacheControl marks responses as not cacheable by shared caches unless
// a handler chose otherwise: API responses are per-user and change.
func WithCacheControl(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, set := w.Header()["Cache-Control"]; !set {
			w.Header().Set("Cache-Control", "no-cache, private")
		}
		next.ServeHTTP(w, r)
	})
}
