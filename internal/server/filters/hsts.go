package filters

import (
	"net/http"
	"strings"
)

// WithHSTS sets Strict-Transport-Security from the given directives (for
// example "max-age=31536000", "includeSubDomains"). Without directives it
// returns next unchanged.
func WithHSTS(next http.Handler, directives []string) http.Handler {
	if len(directives) == 0 {
		return next
	}
	value := strings.Join(directives, "; ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, set := w.Header()["Strict-Transport-Security"]; !set {
			w.Header().Set("Strict-Transport-Security", value)
		}
		next.ServeHTTP(w, r)
	})
}
