package filters

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// The CORS response headers kube-apiserver sends: it passes no methods,
// headers or exposed headers to its filter, which then uses these.
var (
	corsAllowMethods  = strings.Join([]string{"POST", "GET", "OPTIONS", "PUT", "DELETE", "PATCH"}, ", ")
	corsAllowHeaders  = strings.Join([]string{"Content-Type", "Content-Length", "Accept-Encoding", "X-CSRF-Token", "Authorization", "X-Requested-With", "If-Modified-Since"}, ", ")
	corsExposeHeaders = "Date"
)

// CompileOrigins compiles --cors-allowed-origins.
func CompileOrigins(patterns []string) ([]*regexp.Regexp, error) {
	res := make([]*regexp.Regexp, 0, len(patterns))
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("CORS allowed origin %q: %w", p, err)
		}
		res = append(res, re)
	}
	return res, nil
}

// WithCORS answers cross-origin requests whose Origin header matches one
// of allowed, as kube-apiserver does with --cors-allowed-origins: it sets
// the Access-Control-* headers (credentials allowed), answers a preflight
// OPTIONS itself with 204, and hands anything else on. It sits before
// authentication, so a browser's preflight, which carries no credentials,
// is answered. Requests without Origin, or from other origins, pass
// unchanged (the browser then withholds the response). No patterns returns
// next.
func WithCORS(next http.Handler, allowed []*regexp.Regexp) http.Handler {
	if len(allowed) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" || !originAllowed(origin, allowed) {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Methods", corsAllowMethods)
		h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		h.Set("Access-Control-Allow-Credentials", "true")
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func originAllowed(origin string, allowed []*regexp.Regexp) bool {
	for _, re := range allowed {
		if re.MatchString(origin) {
			return true
		}
	}
	return false
}
