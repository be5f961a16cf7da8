// Package clientmetrics records client-go's rest_client_* families
// (rest_client_requests_total, rest_client_request_duration_seconds,
// rest_client_request_size_bytes, rest_client_response_size_bytes) for the
// requests a server makes to itself through its loopback client, into the
// server's own registry.
//
// client-go's own hook (k8s.io/client-go/tools/metrics.Register) is
// process-wide and takes effect once, so every server of a process would
// share one set of series; instead the loopback rest.Config carries a
// round tripper (WrapTransport, kept by rest.CopyConfig) that records into
// the registry of the server that owns it.
package clientmetrics

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"
)

// Upstream's buckets: latency up to a minute, sizes from 64 B to 16 MiB.
var (
	durationBuckets = []float64{0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0}
	sizeBuckets     = []float64{64, 256, 512, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216}
)

// errorCode is the code label of a request that got no response, as
// client-go reports it.
const errorCode = "<error>"

// Metrics holds the rest_client_* families of one server.
type Metrics struct {
	requests     *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	requestSize  *prometheus.HistogramVec
	responseSize *prometheus.HistogramVec
}

// New creates the families and registers them on reg.
func New(reg prometheus.Registerer) (*Metrics, error) {
	verbHost := []string{"verb", "host"}
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rest_client_requests_total",
			Help: "[ALPHA] Number of HTTP requests, partitioned by status code, method, and host.",
		}, []string{"code", "method", "host"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "rest_client_request_duration_seconds",
			Help:    "[ALPHA] Request latency in seconds. Broken down by verb, and host.",
			Buckets: durationBuckets,
		}, verbHost),
		requestSize: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "rest_client_request_size_bytes",
			Help:    "[ALPHA] Request size in bytes. Broken down by verb and host.",
			Buckets: sizeBuckets,
		}, verbHost),
		responseSize: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "rest_client_response_size_bytes",
			Help:    "[ALPHA] Response size in bytes. Broken down by verb and host.",
			Buckets: sizeBuckets,
		}, verbHost),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.requestSize, m.responseSize} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Instrument makes every client built from cfg, or from a copy of it,
// record its requests in m. A nil m leaves cfg as it is.
func (m *Metrics) Instrument(cfg *rest.Config) {
	if m == nil {
		return
	}
	inner := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if inner != nil {
			rt = inner(rt)
		}
		return &roundTripper{m: m, next: rt}
	}
}

// roundTripper records each request it sends: every attempt in
// rest_client_requests_total, as client-go counts its retries too.
type roundTripper struct {
	m    *Metrics
	next http.RoundTripper
}

func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	verb, host := req.Method, req.URL.Host
	// The size when it is known, as client-go observes it: a request
	// without a body counts as 0 bytes.
	if req.ContentLength >= 0 && !(req.Body != nil && req.ContentLength == 0) {
		t.m.requestSize.WithLabelValues(verb, host).Observe(float64(req.ContentLength))
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		t.m.requests.WithLabelValues(errorCode, verb, host).Inc()
		t.m.duration.WithLabelValues(verb, host).Observe(time.Since(start).Seconds())
		return resp, err
	}
	t.m.requests.WithLabelValues(strconv.Itoa(resp.StatusCode), verb, host).Inc()
	// client-go times and sizes the requests whose body it reads whole,
	// not watches, which stream for as long as they last.
	if !isWatch(req) {
		resp.Body = &countingBody{ReadCloser: resp.Body, done: func(n int64) {
			t.m.duration.WithLabelValues(verb, host).Observe(time.Since(start).Seconds())
			t.m.responseSize.WithLabelValues(verb, host).Observe(float64(n))
		}}
	}
	return resp, nil
}

// isWatch tells a watch by its watch parameter, as client-go sends it.
func isWatch(req *http.Request) bool {
	if !strings.Contains(req.URL.RawQuery, "watch=") {
		return false
	}
	v := strings.ToLower(req.URL.Query().Get("watch"))
	return v != "" && v != "0" && v != "false"
}

// countingBody counts the bytes read and reports them once, when the
// body is closed: by then client-go has read the whole response.
type countingBody struct {
	io.ReadCloser
	n        atomic.Int64
	reported atomic.Bool
	done     func(n int64)
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

func (b *countingBody) Close() error {
	err := b.ReadCloser.Close()
	if !b.reported.Swap(true) {
		b.done(b.n.Load())
	}
	return err
}
