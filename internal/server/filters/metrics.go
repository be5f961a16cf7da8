package filters

import (
	"bufio"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/internal/endpoints/metrics"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// WithRequestMetrics records each request in kube-apiserver's request
// metrics (see internal/endpoints/metrics). It sits right inside
// WithRequestInfo, so its clock starts before every other filter, as
// upstream's starts at the request's arrival. Like upstream, which
// instruments only its installed routes, it counts in
// apiserver_request_total only the requests an installed API route took
// (request.MarkRouted) — never an unknown path, nor a 401 or 403 — plus the
// 429s of the in-flight limits, which upstream records as dropped
// requests. Requests that are not long-running count in
// apiserver_current_inflight_requests; long-running ones, once routed, in
// apiserver_longrunning_requests.
func WithRequestMetrics(next http.Handler, m *metrics.Metrics, longRunning request.LongRunningRequestCheck) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, ok := request.RequestInfoFrom(r.Context())
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		// One allocation holds the record, the observation and the writer.
		rec := &requestRecord{m: m, r: r, info: info, writer: statusWriter{ResponseWriter: w}}
		rec.obs.Start = start
		rec.longRunning = longRunning != nil && longRunning(r, info)
		defer rec.done()
		if !rec.longRunning {
			rec.mutating = !slices.Contains(readOnlyVerbs, info.Verb)
			m.InflightStarted(rec.mutating, start)
		}
		ctx := request.WithObservation(r.Context(), &rec.obs, rec)
		next.ServeHTTP(&rec.writer, r.WithContext(ctx))
		rec.record(start)
	})
}

// requestRecord is what WithRequestMetrics keeps of one request.
type requestRecord struct {
	m           *metrics.Metrics
	r           *http.Request
	info        *request.RequestInfo
	obs         request.Observation
	writer      statusWriter
	longRunning bool
	mutating    bool
	// gauge and watch are set in the serving goroutine of a long-running
	// request, which is the filter's own.
	gauge prometheus.Gauge
	watch *metrics.WatchRecorder
}

var _ request.Observer = (*requestRecord)(nil)

// Routed implements request.Observer: a long-running request counts as
// running from the moment an installed route takes it.
func (rec *requestRecord) Routed() {
	if !rec.longRunning || !rec.info.IsResourceRequest {
		return
	}
	labels := metrics.ResourceLabels(rec.r, rec.info)
	rec.gauge = rec.m.LongRunning(&labels)
	rec.gauge.Inc()
}

// WatchEvent implements request.Observer.
func (rec *requestRecord) WatchEvent(size int) {
	if rec.watch == nil {
		rec.watch = rec.m.Watch(rec.info.APIGroup, rec.info.APIVersion, rec.info.Resource)
	}
	rec.watch.Observe(size)
}

// Terminated implements request.Observer. A non-resource request is
// recorded without its path, so that no path a client invents becomes a
// label value (upstream puts it in the subresource label).
func (rec *requestRecord) Terminated(code int) {
	labels := metrics.ResourceLabels(rec.r, rec.info)
	if !rec.info.IsResourceRequest {
		labels.Group, labels.Version, labels.Resource, labels.Subresource = "", "", "", ""
	}
	rec.m.ObserveTermination(&labels, code)
}

// done ends the gauges, even when the handler panics.
func (rec *requestRecord) done() {
	if !rec.longRunning {
		rec.m.InflightDone(rec.mutating)
	}
	if rec.gauge != nil {
		rec.gauge.Dec()
	}
}

// record counts the finished request, if upstream would.
func (rec *requestRecord) record(start time.Time) {
	code := rec.writer.Status()
	var labels metrics.Labels
	switch {
	case rec.obs.Routed() && rec.info.IsResourceRequest:
		labels = metrics.ResourceLabels(rec.r, rec.info)
	case rec.obs.Routed():
		labels = metrics.DiscoveryLabels(rec.r)
	case code == http.StatusTooManyRequests:
		// Turned away by a concurrency limit before any route.
		labels = metrics.ResourceLabels(rec.r, rec.info)
		if !rec.info.IsResourceRequest {
			labels.Group, labels.Version, labels.Resource, labels.Subresource = "", "", "", ""
		}
	default:
		return
	}
	rec.m.ObserveRequest(&labels, code, rec.writer.written, time.Since(start), rec.obs.WebhookLatency())
}

// statusWriter notes the status code and the body bytes written. Flush
// and Hijack reach the wrapped writer through http.ResponseController, so
// watches and upgrades keep working.
type statusWriter struct {
	http.ResponseWriter
	status  int
	written int64
}

// Status is the status code sent, 0 when nothing was (a hijacked
// connection), as upstream records it.
func (w *statusWriter) Status() int { return w.status }

func (w *statusWriter) WriteHeader(code int) {
	// Informational responses precede the real status line.
	if w.status == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.written += int64(n)
	return n, err
}

// Flush implements http.Flusher.
func (w *statusWriter) Flush() { _ = w.FlushError() }

// FlushError is what http.ResponseController calls.
func (w *statusWriter) FlushError() error {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Hijack implements http.Hijacker when the wrapped writer supports it.
func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Unwrap lets http.ResponseController reach the wrapped writer's deadlines.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
