package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// ObserveRequest records a finished request with labels l, answered with
// code after elapsed, with size bytes of body. excluded is the time spent
// waiting on others (admission webhooks, priority-and-fairness queues),
// which the SLI histogram leaves out.
func (m *Metrics) ObserveRequest(l *Labels, code int, size int64, elapsed, excluded time.Duration) {
	if m == nil {
		return
	}
	c := m.requestChildren.get(requestKey{Labels: *l, code: code})
	c.total.Inc()
	seconds := elapsed.Seconds()
	c.duration.Observe(seconds)
	if c.sli != nil {
		c.sli.Observe((elapsed - excluded).Seconds())
	}
	if c.size != nil {
		c.size.Observe(float64(size))
	}
}

// LongRunning returns the gauge of the long-running requests labeled l.
func (m *Metrics) LongRunning(l *Labels) prometheus.Gauge {
	return m.longRunningChildren.get(resourceKey{l.Verb, l.Group, l.Version, l.Resource, l.Subresource, l.Scope})
}

// Watch returns the recorder of the watch events of a group, version and
// resource.
func (m *Metrics) Watch(group, version, resource string) *WatchRecorder {
	return m.watchChildren.get(gvrKey{group, version, resource})
}

// ObserveFilter records that the filter named name took d before handing
// the request on.
func (m *Metrics) ObserveFilter(name string, d time.Duration) {
	if m != nil {
		m.filterChildren.get(name).Observe(d.Seconds())
	}
}

// InflightStarted counts a request that is not long-running as executing,
// from now on; InflightDone ends it.
func (m *Metrics) InflightStarted(mutating bool, now time.Time) {
	m.inflight.kind(mutating).add(now)
}

// InflightDone ends a request counted by InflightStarted.
func (m *Metrics) InflightDone(mutating bool) {
	m.inflight.kind(mutating).done()
}

// ObserveTermination records a request labeled l that a filter ended early
// with code to protect the server: a timeout, or a concurrency limit.
// Terminations are rare; their series are looked up as they happen.
func (m *Metrics) ObserveTermination(l *Labels, code int) {
	if m != nil {
		m.terminations.WithLabelValues(l.Verb, l.Group, l.Version, l.Resource, l.Subresource, l.Scope, Component, strconv.Itoa(code)).Inc()
	}
}

// ObserveAbort records a request whose response was aborted (a panic with
// http.ErrAbortHandler, mostly a timeout after the response started).
func (m *Metrics) ObserveAbort(r *http.Request, info *request.RequestInfo) {
	if m == nil {
		return
	}
	l := ResourceLabels(r, info)
	m.aborts.WithLabelValues(l.Verb, l.Group, l.Version, l.Resource, l.Subresource, l.Scope).Inc()
}
