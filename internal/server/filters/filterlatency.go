package filters

import (
	"net/http"
	"time"

	"github.com/kapi-dev/kapi/internal/endpoints/metrics"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// TrackStarted notes that the filter name starts on the request; the
// TrackCompleted placed right inside that filter records, in
// apiserver_request_filter_duration_seconds, how long it took to hand the
// request on. Upstream brackets authentication, audit, impersonation,
// priority-and-fairness and authorization so. Both use the request's
// Observation (WithRequestMetrics) and do nothing without it.
func TrackStarted(next http.Handler, m *metrics.Metrics, name string) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := request.ObservationFrom(r.Context()); o != nil {
			o.FilterName, o.FilterStarted = name, time.Now()
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
		}
		next.ServeHTTP(w, r)
	})
}
