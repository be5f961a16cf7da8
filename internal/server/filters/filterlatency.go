package filters

import (
	"net/http"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/kapi-dev/kapi/internal/endpoints/metrics"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/server/tracing"
)

// TrackStarted notes that the filter name starts on the request; the
// TrackCompleted placed right inside that filter records, in
// apiserver_request_filter_duration_seconds, how long it took to hand the
// request on. Upstream brackets authentication, audit, impersonation,
// priority-and-fairness and authorization so. In a traced request the
// filter is also a span of that name, a child of the request's span, as
// upstream's, which ends where the filter hands the request on or, when
// the filter answers itself, when it returns; authentication comes before
// the server span (WithTracing needs the user), so it has none. Both use
// the request's Observation (WithRequestMetrics) and do nothing without
// it; outside a traced request they look for no span.
func TrackStarted(next http.Handler, m *metrics.Metrics, name string) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o := request.ObservationFrom(r.Context())
		if o == nil {
			next.ServeHTTP(w, r)
			return
		}
		o.FilterName, o.FilterStarted = name, time.Now()
		if o.Traced {
			parent := trace.SpanFromContext(r.Context())
			ctx, span := parent.TracerProvider().Tracer(tracing.ScopeName).Start(r.Context(), name)
			o.FilterSpan, o.FilterParent = span, parent
			r = r.WithContext(ctx)
			// A filter that answers itself (401, 403, 429) never reaches
			// its TrackCompleted; ending a span twice does nothing.
			defer span.End()
		}
		next.ServeHTTP(w, r)
	})
}

// TrackCompleted records the latency of the filter TrackStarted named.
func TrackCompleted(next http.Handler, m *metrics.Metrics) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := request.ObservationFrom(r.Context()); o != nil && o.FilterName != "" {
			m.ObserveFilter(o.FilterName, time.Since(o.FilterStarted))
			o.FilterName = ""
			if o.FilterSpan != nil {
				// What follows the filter is not part of it.
				o.FilterSpan.End()
				r = r.WithContext(trace.ContextWithSpan(r.Context(), o.FilterParent))
				o.FilterSpan, o.FilterParent = nil, nil
			}
		}
		next.ServeHTTP(w, r)
	})
}
