package server

import (
	"net/http"

	"github.com/kapi-dev/kapi/internal/server/filters"
)

// DefaultBuildHandlerChain wraps apiHandler in the filter chain. The whole
// order is here, outermost first, as kube-apiserver orders it:
//
//  1. request id        every response carries Audit-Id, even a panic's
//  2. panic recovery    turns a panic anywhere below into a 500
//  3. request info      what the request means, for everything below
//  4. HSTS              (only with directives)
//  5. cache control
//  6. warning recorder  outside the timeout, so a 504 keeps earlier warnings
//  7. wait group        counts requests for draining; 503 while draining
//  8. timeout           deadline and 504 for non-long-running requests
//  9. authentication    401
//  10. max in flight    429; after authentication so system:masters is known
//  11. authorization    403
//
// Audit, impersonation, CORS and priority-and-fairness will slot in where
// upstream has them (audit and impersonation between authentication and the
// in-flight limit, CORS before authentication).
func DefaultBuildHandlerChain(apiHandler http.Handler, c *Config) http.Handler {
	h := apiHandler
	if c.Authorization != nil {
		h = filters.WithAuthorization(h, c.Authorization, c.Logger)
	} else {
		c.Logger.Warn("authorization is disabled")
	}
	h = filters.WithMaxInFlightLimit(h, c.MaxRequestsInFlight, c.MaxMutatingRequestsInFlight, c.LongRunningFunc)
	if c.Authentication != nil {
		h = filters.WithAuthentication(h, c.Authentication, c.Logger)
	} else {
		c.Logger.Warn("authentication is disabled")
	}
	h = filters.WithTimeoutForNonLongRunningRequests(h, c.LongRunningFunc, c.RequestTimeout, c.Logger)
	h = filters.WithWaitGroup(h, c.LongRunningFunc, c.NonLongRunningRequestWaitGroup)
	h = filters.WithWarningRecorder(h)
	h = filters.WithCacheControl(h)
	h = filters.WithHSTS(h, c.HSTSDirectives)
	h = filters.WithRequestInfo(h, c.RequestInfoResolver)
	h = filters.WithPanicRecovery(h, c.Logger)
	h = filters.WithRequestID(h)
	return h
}
