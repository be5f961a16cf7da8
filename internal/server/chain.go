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
//  9. authentication    401 (audited on its own: it comes before audit)
//  10. audit            events per --audit-policy-file
//  11. impersonation    Impersonate-* headers, each authorized
//  12. max in flight    429; after authentication so system:masters is known
//  13. authorization    403
//
// CORS and priority-and-fairness will slot in where upstream has them
// (CORS before authentication).
func DefaultBuildHandlerChain(apiHandler http.Handler, c *Config) http.Handler {
	h := apiHandler
	if c.Authorization != nil {
		h = filters.WithAuthorization(h, c.Authorization, c.Logger)
	} else {
		c.Logger.Warn("authorization is disabled")
	}
	h = filters.WithMaxInFlightLimit(h, c.MaxRequestsInFlight, c.MaxMutatingRequestsInFlight, c.LongRunningFunc)
	if c.Authorization != nil {
		// Impersonation asks the authorizer whether the real user may
		// act as the one it names.
		h = filters.WithImpersonation(h, c.Authorization)
	}
	if c.AuditChecker != nil && c.AuditBackend != nil {
		h = filters.WithAudit(h, c.AuditChecker, c.AuditBackend, c.LongRunningFunc)
	}
	if c.Authentication != nil {
		// A refused request never reaches the audit filter below, so
		// the 401 is audited where it is written.
		failed := filters.WithFailedAuthenticationAudit(filters.Unauthorized(), c.AuditChecker, c.AuditBackend)
		h = filters.WithAuthentication(h, c.Authentication, failed, c.Logger)
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
