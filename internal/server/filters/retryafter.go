package filters

import (
	"net/http"
	"strings"
)

// retryAfterMessage is upstream's body for requests refused during
// shutdown with --shutdown-send-retry-after.
const retryAfterMessage = "The apiserver is shutting down, please try again later."

// loopbackUserAgentPrefixes name this server's own clients: upstream
// exempts its loopback ("kube-apiserver/"); kapi's in-process clients say
// "kapi/" (and a drop-in binary named kube-apiserver says the former).
var loopbackUserAgentPrefixes = []string{"kube-apiserver/", "kapi/"}

// WithRetryAfter answers every request with 429, Retry-After: 5 and
// Connection: close once wg is draining (the shutdown delay is over and
// the server no longer accepts new requests), as kube-apiserver does with
// --shutdown-send-retry-after. Connection: close makes Go send an HTTP/2
// GOAWAY, so the client reconnects, likely to another server. Probes,
// /metrics and the server's own loopback clients are exempt, as they are
// from the wait group's refusal. With enabled false it returns next.
func WithRetryAfter(next http.Handler, enabled bool, wg *RequestWaitGroup) http.Handler {
	if !enabled {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !wg.IsDraining() || exemptFromRetryAfter(r) {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Connection", "close")
		w.Header().Set("Retry-After", "5")
		http.Error(w, retryAfterMessage, http.StatusTooManyRequests)
	})
}

// exemptFromRetryAfter: the requests served to the end of a shutdown.
func exemptFromRetryAfter(r *http.Request) bool {
	if drainExempt(r.URL.Path) {
		return true
	}
	ua := r.UserAgent()
	for _, p := range loopbackUserAgentPrefixes {
		if strings.HasPrefix(ua, p) {
			return true
		}
	}
	return false
}
