// Package metrics holds the request metrics kapi exports under
// kube-apiserver's names, labels, buckets and HELP texts (with the
// stability level component-base puts in front of them), so the upstream
// dashboards and alerts read kapi unchanged: apiserver_request_total and
// its latency and size histograms, the in-flight and long-running gauges,
// filter latencies, watch events, authentication and authorization attempts
// and TLS handshake errors. The collectors belong to a Metrics value
// registered on a registry the caller owns; nothing is global.
//
// Recording is on every request's path, so the children of the labeled
// vectors are cached per label tuple (see cache.go): a request costs map
// look-ups, not label hashing in every vector.
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Component is the component label of the requests kapi serves itself, as
// kube-apiserver's generic server labels them.
const Component = "apiserver"

// Stability levels, as component-base writes them in front of HELP.
const (
	alpha  = "[ALPHA] "
	beta   = "[BETA] "
	stable = "[STABLE] "
)

var (
	requestLabels     = []string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"}
	requestCodeLabels = append(append([]string(nil), requestLabels...), "code")
	// The SLI, size and long-running families have no dry_run label.
	resourceLabels = []string{"verb", "group", "version", "resource", "subresource", "scope", "component"}
	gvrLabels      = []string{"group", "version", "resource"}

	durationBuckets = []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3,
		4, 5, 6, 8, 10, 15, 20, 30, 45, 60}
	sliBuckets = []float64{0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3,
		4, 5, 6, 8, 10, 15, 20, 30, 45, 60}
	filterBuckets = []float64{0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 5.0, 10.0, 15.0, 30.0}
	// 1 kB to 1 GB for responses, 1 KiB to 128 KiB for watch events.
	sizeBuckets       = prometheus.ExponentialBuckets(1000, 10, 7)
	watchEventBuckets = prometheus.ExponentialBuckets(1024, 2, 8)
	authBuckets       = prometheus.ExponentialBuckets(0.001, 2, 15)
)

// Metrics records the requests of one server. A nil *Metrics records
// nothing.
type Metrics struct {
	requests        *prometheus.CounterVec
	duration        *prometheus.HistogramVec
	sliDuration     *prometheus.HistogramVec
	responseSizes   *prometheus.HistogramVec
	longRunning     *prometheus.GaugeVec
	filterDuration  *prometheus.HistogramVec
	tlsErrors       prometheus.Counter
	watchEvents     *prometheus.CounterVec
	watchEventSizes *prometheus.HistogramVec
	authnAttempts   *prometheus.CounterVec
	authnDuration   *prometheus.HistogramVec
	authnUsers      *prometheus.CounterVec
	authzAttempts   *prometheus.CounterVec
	authzDuration   *prometheus.HistogramVec
	authzDecisions  *prometheus.CounterVec
	terminations    *prometheus.CounterVec
	aborts          *prometheus.CounterVec
	admissionStep   *prometheus.HistogramVec

	inflight *inflight

	requestChildren     cache[requestKey, *requestChildren]
	longRunningChildren cache[resourceKey, prometheus.Gauge]
	watchChildren       cache[gvrKey, *WatchRecorder]
	filterChildren      cache[string, prometheus.Observer]

	// ops are the admission, audit and authorizer families (operations.go).
	ops *operations
}

// New creates the request metrics and registers them on reg.
func New(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_request_total",
			Help: stable + "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
		}, requestCodeLabels),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_request_duration_seconds",
			Help:    stable + "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
			Buckets: durationBuckets,
		}, requestLabels),
		sliDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_request_sli_duration_seconds",
			Help:    alpha + "Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.",
			Buckets: sliBuckets,
		}, resourceLabels),
		responseSizes: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_response_sizes",
			Help:    stable + "Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.",
			Buckets: sizeBuckets,
		}, resourceLabels),
		longRunning: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_longrunning_requests",
			Help: stable + "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.",
		}, resourceLabels),
		filterDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_request_filter_duration_seconds",
			Help:    alpha + "Request filter latency distribution in seconds, for each filter type",
			Buckets: filterBuckets,
		}, []string{"filter"}),
		tlsErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "apiserver_tls_handshake_errors_total",
			Help: alpha + "Number of requests dropped with 'TLS handshake error from' error",
		}),
		watchEvents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_watch_events_total",
			Help: beta + "Number of events sent in watch clients",
		}, gvrLabels),
		watchEventSizes: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_watch_events_sizes",
			Help:    beta + "Watch event size distribution in bytes",
			Buckets: watchEventBuckets,
		}, gvrLabels),
		authnAttempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "authentication_attempts",
			Help: alpha + "Counter of authenticated attempts.",
		}, []string{"result"}),
		authnDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "authentication_duration_seconds",
			Help:    alpha + "Authentication duration in seconds broken out by result.",
			Buckets: authBuckets,
		}, []string{"result"}),
		authnUsers: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "authenticated_user_requests",
			Help: alpha + "Counter of authenticated requests broken out by username.",
		}, []string{"username"}),
		authzAttempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "authorization_attempts_total",
			Help: alpha + "Counter of authorization attempts broken down by result. It can be either 'allowed', 'denied', 'no-opinion' or 'error'.",
		}, []string{"result"}),
		authzDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "authorization_duration_seconds",
			Help:    alpha + "Authorization duration in seconds broken out by result.",
			Buckets: authBuckets,
		}, []string{"result"}),
		authzDecisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_authorization_decisions_total",
			Help: alpha + "Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.",
		}, []string{"type", "name", "decision"}),
		terminations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_request_terminations_total",
			Help: alpha + "Number of requests which apiserver terminated in self-defense.",
		}, append(append([]string(nil), resourceLabels...), "code")),
		aborts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_request_aborts_total",
			Help: alpha + "Number of requests which apiserver aborted possibly due to a timeout, for each group, version, verb, resource, subresource and scope",
		}, []string{"verb", "group", "version", "resource", "subresource", "scope"}),
		admissionStep: newAdmissionStep(),
		inflight:      newInflight(),
	}
	m.initCaches()
	for _, c := range []prometheus.Collector{
		m.requests, m.duration, m.sliDuration, m.responseSizes, m.longRunning,
		m.filterDuration, m.tlsErrors, m.watchEvents, m.watchEventSizes,
		m.authnAttempts, m.authnDuration, m.authnUsers, m.authzAttempts, m.authzDuration, m.authzDecisions,
		m.terminations, m.aborts,
		m.admissionStep, m.inflight,
	} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	if err := m.registerOperations(reg); err != nil {
		return nil, err
	}
	return m, nil
}

// TLSHandshakeError counts a connection dropped by a failed TLS handshake.
func (m *Metrics) TLSHandshakeError() {
	if m != nil {
		m.tlsErrors.Inc()
	}
}
