package server

import (
	"net/http"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/server/filters"
)

// DefaultBuildHandlerChain wraps apiHandler in the filter chain. The whole
// order is here, outermost first, as kube-apiserver orders it:
//
//  1. request id        every response carries Audit-Id, even a panic's
//  2. panic recovery    turns a panic anywhere below into a 500
//  3. request info      what the request means, for everything below
//  4. request metrics   apiserver_request_total and friends; its clock
//     starts here, before every other filter
//  5. HTTP logging      upstream's httplog line at -v>=3
//  6. retry after       429 after the shutdown delay
//     (--shutdown-send-retry-after)
//  7. HSTS              (only with directives)
//  8. cache control
//  9. warning recorder  outside the timeout, so a 504 keeps earlier warnings
//  10. GOAWAY chance    (--goaway-chance)
//  11. wait group       counts requests for draining; 503 while draining
//  12. timeout          deadline and 504 for non-long-running requests
//  13. CORS             preflights answered before authentication
//  14. authentication   401 (audited on its own: it comes before audit)
//  15. tracing          the request's server span (--tracing-config-file);
//     after authentication, as upstream since 1.37, so that only
//     privileged users' trace context is followed
//  16. audit            events per --audit-policy-file
//  17. impersonation    Impersonate-* headers, each authorized
//  18. priority and fairness, or max in flight when APF is off: 429;
//     after authentication so the user is known
//  19. authorization    403
//
// TrackStarted/TrackCompleted bracket authentication, audit, impersonation,
// priority and fairness and authorization for
// apiserver_request_filter_duration_seconds, as upstream brackets them,
// and, in a traced request, make each but authentication a span.
func DefaultBuildHandlerChain(apiHandler http.Handler, c *Config) http.Handler {
	h := apiHandler
	m := c.Metrics
	if c.Authorization != nil {
		h = filters.TrackCompleted(h, m)
		h = filters.WithAuthorization(h, m.Authorizer(c.Authorization), c.Logger)
		h = filters.TrackStarted(h, m, "authorization")
	} else {
		c.Logger.Warn("authorization is disabled")
	}
	h = filters.WithMaxInFlightLimit(h, c.MaxRequestsInFlight, c.MaxMutatingRequestsInFlight, c.LongRunningFunc)
	if c.FlowControl != nil {
		// API Priority and Fairness; complete() turned max in flight
		// off above, as upstream has one or the other. Requests without a
		// deadline may wait a quarter of the request timeout.
		h = filters.TrackCompleted(h, m)
		h = filters.WithPriorityAndFairness(h, c.FlowControl, c.LongRunningFunc, c.RequestTimeout/4)
		h = filters.TrackStarted(h, m, "priorityandfairness")
	}
	if c.Authorization != nil {
		// Impersonation asks the authorizer whether the real user may
		// act as the one it names.
		h = filters.TrackCompleted(h, m)
		h = filters.WithImpersonation(h, c.Authorization)
		h = filters.TrackStarted(h, m, "impersonation")
	}
	if c.AuditChecker != nil && c.AuditBackend != nil {
		h = filters.TrackCompleted(h, m)
		h = filters.WithAudit(h, c.AuditChecker, c.AuditBackend, c.LongRunningFunc)
		h = filters.TrackStarted(h, m, "audit")
	}
	h = filters.WithTracing(h, c.TracerProvider)
	if c.Authentication != nil {
		// A refused request never reaches the audit filter below, so
		// the 401 is audited where it is written.
		failed := filters.WithFailedAuthenticationAudit(filters.Unauthorized(), c.AuditChecker, c.AuditBackend)
		h = filters.TrackCompleted(h, m)
		h = filters.WithAuthentication(h, m.Authenticator(c.Authentication), filters.TrackCompleted(failed, m), c.Logger)
		h = filters.TrackStarted(h, m, "authentication")
	} else {
		c.Logger.Warn("authentication is disabled")
	}
	// CORS answers a preflight before authentication, as upstream.
	h = filters.WithCORS(h, corsOrigins(c))
	h = filters.WithTimeoutForNonLongRunningRequests(h, c.LongRunningFunc, c.RequestTimeout, c.Logger)
	h = filters.WithWaitGroup(h, c.LongRunningFunc, c.NonLongRunningRequestWaitGroup)
	h = filters.WithProbabilisticGoaway(h, c.GoawayChance)
	h = filters.WithWarningRecorder(h)
	h = filters.WithCacheControl(h)
	h = filters.WithHSTS(h, c.HSTSDirectives)
	h = filters.WithRetryAfter(h, c.ShutdownSendRetryAfter, c.NonLongRunningRequestWaitGroup)
	h = filters.WithHTTPLogging(h, c.Logger, c.Verbosity)
	h = filters.WithRequestMetrics(h, m, c.LongRunningFunc)
	h = filters.WithRequestInfo(h, c.RequestInfoResolver)
	h = filters.WithPanicRecovery(h, c.Logger, abortRecorder(c))
	h = filters.WithRequestID(h)
	return h
}

// abortRecorder counts aborted responses in apiserver_request_aborts_total.
// The panic recovery sits outside the request info filter, so the request
// is resolved again, as upstream does; only aborts pay for it.
func abortRecorder(c *Config) func(*http.Request) {
	if c.Metrics == nil {
		return nil
	}
	return func(r *http.Request) {
		info, err := c.RequestInfoResolver.NewRequestInfo(r)
		if err != nil {
			info = &request.RequestInfo{Verb: r.Method, Path: r.URL.Path}
		}
		c.Metrics.ObserveAbort(r, info)
	}
}
