package request

import (
	"net/http"
	"slices"
	"strings"
)

// LongRunningRequestCheck reports whether a request may legitimately stay
// open for a long time (watches, proxies, exec). Such requests are exempt
// from the request timeout, the in-flight limit and shutdown draining.
type LongRunningRequestCheck func(r *http.Request, info *RequestInfo) bool

// BasicLongRunningRequestCheck returns a check that treats the given verbs,
// the given subresources of resource requests, and the profiling endpoints
// as long-running.
func BasicLongRunningRequestCheck(verbs, subresources []string) LongRunningRequestCheck {
	verbs = slices.Clone(verbs)
	subresources = slices.Clone(subresources)
	return func(_ *http.Request, info *RequestInfo) bool {
		if slices.Contains(verbs, info.Verb) {
			return true
		}
		if info.IsResourceRequest {
			return slices.Contains(subresources, info.Subresource)
		}
		// A CPU profile or trace runs for as long as the client asks.
		return strings.HasPrefix(info.Path, "/debug/pprof/")
	}
}

// DefaultLongRunningRequestCheck is kube-apiserver's choice: watch and proxy
// verbs, and the streaming pod subresources.
func DefaultLongRunningRequestCheck() LongRunningRequestCheck {
	return BasicLongRunningRequestCheck(
		[]string{"watch", "proxy"},
		[]string{"attach", "exec", "proxy", "log", "portforward"},
	)
}
