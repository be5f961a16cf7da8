package filters

import (
	"context"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/kapi-dev/kapi/internal/endpoints/metrics"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// sample sums, over the series of family whose labels include want, the
// counter or gauge values and the histogram sample counts.
func sample(t *testing.T, reg *prometheus.Registry, family string, want map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, f := range families {
		if f.GetName() != family {
			continue
		}
		for _, m := range f.GetMetric() {
			if !hasLabels(m, want) {
				continue
			}
			switch {
			case m.Counter != nil:
				sum += m.Counter.GetValue()
			case m.Gauge != nil:
				sum += m.Gauge.GetValue()
			case m.Histogram != nil:
				sum += float64(m.Histogram.GetSampleCount())
			}
		}
	}
	return sum
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	found := 0
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			found++
		}
	}
	return found == len(want)
}

func newTestMetrics(t testing.TB) (*prometheus.Registry, *metrics.Metrics) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	return reg, m
}

// routed stands for an installed route: it marks the request routed and
// answers code with a small body.
func routed(code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		request.MarkRouted(r.Context())
		w.WriteHeader(code)
		w.Write([]byte("0123456789"))
	})
}

// unrouted answers code without any route taking the request, as the
// filters and the not-found handler do.
func unrouted(code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) })
}

func TestRequestMetricsCountsRoutedRequests(t *testing.T) {
	tests := []struct {
		name, method, url string
		handler           http.Handler
		want              map[string]string // nil: not counted
	}{
		{"get", "GET", "/api/v1/namespaces/ns/configmaps/a", routed(200),
			map[string]string{"verb": "GET", "resource": "configmaps", "scope": "resource", "code": "200", "component": "apiserver", "dry_run": ""}},
		{"create", "POST", "/api/v1/namespaces/ns/configmaps", routed(201),
			map[string]string{"verb": "POST", "resource": "configmaps", "scope": "resource", "code": "201"}},
		{"object not found", "GET", "/api/v1/namespaces/ns/configmaps/missing", routed(404),
			map[string]string{"verb": "GET", "resource": "configmaps", "code": "404"}},
		{"discovery root", "GET", "/apis", routed(200),
			map[string]string{"verb": "GET", "resource": "", "subresource": "/apis", "scope": "", "code": "200"}},
		{"dropped by the in-flight limit", "GET", "/api/v1/namespaces/ns/configmaps", unrouted(429),
			map[string]string{"verb": "LIST", "resource": "configmaps", "scope": "namespace", "code": "429"}},
		{"unknown resource", "GET", "/api/v1/namespaces/ns/nosuchthings", unrouted(404), nil},
		{"unknown path", "GET", "/nowhere", unrouted(404), nil},
		{"forbidden", "GET", "/api/v1/namespaces/ns/configmaps", unrouted(403), nil},
		{"unauthorized", "GET", "/api/v1/namespaces/ns/configmaps", unrouted(401), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, m := newTestMetrics(t)
			h := withInfo(WithRequestMetrics(tt.handler, m, request.DefaultLongRunningRequestCheck()))
			do(h, tt.method, tt.url)
			total := sample(t, reg, "apiserver_request_total", nil)
			if tt.want == nil {
				if total != 0 {
					t.Fatalf("apiserver_request_total = %v, want nothing counted", total)
				}
				return
			}
			if got := sample(t, reg, "apiserver_request_total", tt.want); got != 1 || total != 1 {
				t.Fatalf("apiserver_request_total%v = %v (of %v), want 1", tt.want, got, total)
			}
			if got := sample(t, reg, "apiserver_request_duration_seconds", map[string]string{"verb": tt.want["verb"]}); got != 1 {
				t.Errorf("apiserver_request_duration_seconds observations = %v, want 1", got)
			}
			if got := sample(t, reg, "apiserver_request_sli_duration_seconds", map[string]string{"verb": tt.want["verb"]}); got != 1 {
				t.Errorf("apiserver_request_sli_duration_seconds observations = %v, want 1", got)
			}
			wantSizes := 0.0
			if v := tt.want["verb"]; v == "GET" || v == "LIST" {
				wantSizes = 1
			}
			if got := sample(t, reg, "apiserver_response_sizes", nil); got != wantSizes {
				t.Errorf("apiserver_response_sizes observations = %v, want %v", got, wantSizes)
			}
		})
	}
}

// TestRequestTerminations: a request a filter turns away to protect the
// server counts in apiserver_request_terminations_total, with its labels
// and the code the client got; a client that goes away does not.
func TestRequestTerminations(t *testing.T) {
	longRunning := request.DefaultLongRunningRequestCheck()
	waitForDeadline := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	t.Run("timeout", func(t *testing.T) {
		reg, m := newTestMetrics(t)
		h := withInfo(WithRequestMetrics(WithTimeoutForNonLongRunningRequests(waitForDeadline, longRunning, time.Millisecond, nil), m, longRunning))
		if rec := do(h, "GET", "/api/v1/namespaces/ns/configmaps"); rec.Code != http.StatusGatewayTimeout {
			t.Fatalf("code = %d, want 504", rec.Code)
		}
		want := map[string]string{"verb": "LIST", "group": "", "version": "v1", "resource": "configmaps", "subresource": "",
			"scope": "namespace", "component": "apiserver", "code": "504"}
		if got := sample(t, reg, "apiserver_request_terminations_total", want); got != 1 {
			t.Errorf("apiserver_request_terminations_total%v = %v, want 1", want, got)
		}
	})
	t.Run("client gone", func(t *testing.T) {
		reg, m := newTestMetrics(t)
		h := withInfo(WithRequestMetrics(WithTimeoutForNonLongRunningRequests(waitForDeadline, longRunning, time.Hour, nil), m, longRunning))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequestWithContext(ctx, "GET", "/api/v1/namespaces/ns/configmaps", nil))
		if got := sample(t, reg, "apiserver_request_terminations_total", nil); got != 0 {
			t.Errorf("apiserver_request_terminations_total = %v after the client went away, want 0", got)
		}
	})
	t.Run("in-flight limit", func(t *testing.T) {
		reg, m := newTestMetrics(t)
		entered, release := make(chan struct{}), make(chan struct{})
		hold := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			close(entered)
			<-release
		})
		h := withInfo(WithRequestMetrics(WithMaxInFlightLimit(hold, 1, 1, longRunning), m, longRunning))
		done := make(chan struct{})
		go func() {
			defer close(done)
			do(h, "GET", "/api/v1/pods")
		}()
		<-entered
		if rec := do(h, "GET", "/healthz"); rec.Code != http.StatusTooManyRequests {
			t.Fatalf("code = %d, want 429", rec.Code)
		}
		close(release)
		<-done
		// No path of a non-resource request is a label value.
		want := map[string]string{"verb": "GET", "group": "", "version": "", "resource": "", "subresource": "", "scope": "", "code": "429"}
		if got := sample(t, reg, "apiserver_request_terminations_total", want); got != 1 {
			t.Errorf("apiserver_request_terminations_total%v = %v, want 1", want, got)
		}
	})
}

func TestRequestMetricsDryRunStaysOutOfTheSLI(t *testing.T) {
	reg, m := newTestMetrics(t)
	h := withInfo(WithRequestMetrics(routed(201), m, nil))
	do(h, "POST", "/api/v1/namespaces/ns/configmaps?dryRun=All")
	if got := sample(t, reg, "apiserver_request_total", map[string]string{"dry_run": "All"}); got != 1 {
		t.Errorf("dry-run requests = %v, want 1", got)
	}
	if got := sample(t, reg, "apiserver_request_sli_duration_seconds", nil); got != 0 {
		t.Errorf("SLI observations = %v, want none for a dry run", got)
	}
}

func TestRequestMetricsGauges(t *testing.T) {
	reg, m := newTestMetrics(t)
	var inflight, longRunning, events float64
	watch := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		request.MarkRouted(r.Context())
		longRunning = sample(t, reg, "apiserver_longrunning_requests", map[string]string{"verb": "WATCH", "resource": "pods", "scope": "namespace"})
		request.ObservationFrom(r.Context()).WatchEvent(2000)
		request.ObservationFrom(r.Context()).WatchEvent(10)
		events = sample(t, reg, "apiserver_watch_events_total", map[string]string{"group": "", "version": "v1", "resource": "pods"})
	})
	create := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		request.MarkRouted(r.Context())
		inflight = sample(t, reg, "apiserver_current_inflight_requests", map[string]string{"request_kind": "mutating"})
		w.WriteHeader(http.StatusCreated)
	})
	mux := http.NewServeMux()
	mux.Handle("GET /", watch)
	mux.Handle("POST /", create)
	h := withInfo(WithRequestMetrics(mux, m, request.DefaultLongRunningRequestCheck()))

	do(h, "GET", "/api/v1/namespaces/ns/pods?watch=true")
	if longRunning != 1 {
		t.Errorf("apiserver_longrunning_requests during the watch = %v, want 1", longRunning)
	}
	if got := sample(t, reg, "apiserver_longrunning_requests", nil); got != 0 {
		t.Errorf("apiserver_longrunning_requests after the watch = %v, want 0", got)
	}
	if events != 2 {
		t.Errorf("apiserver_watch_events_total = %v, want 2", events)
	}
	if got := sample(t, reg, "apiserver_watch_events_sizes", nil); got != 2 {
		t.Errorf("apiserver_watch_events_sizes observations = %v, want 2", got)
	}
	if got := sample(t, reg, "apiserver_current_inflight_requests", map[string]string{"request_kind": "readOnly"}); got != 0 {
		t.Errorf("a watch counted in flight: %v", got)
	}

	do(h, "POST", "/api/v1/namespaces/ns/configmaps")
	if inflight != 1 {
		t.Errorf("apiserver_current_inflight_requests{mutating} during a create = %v, want 1", inflight)
	}
}

func TestFilterLatency(t *testing.T) {
	reg, m := newTestMetrics(t)
	h := withInfo(WithRequestMetrics(TrackStarted(TrackCompleted(routed(200), m), m, "authorization"), m, nil))
	do(h, "GET", "/api/v1/namespaces/ns/configmaps/a")
	if got := sample(t, reg, "apiserver_request_filter_duration_seconds", map[string]string{"filter": "authorization"}); got != 1 {
		t.Errorf("filter latency observations = %v, want 1", got)
	}
}

func TestRequestMetricsKeepsFlushAndHijack(t *testing.T) {
	_, m := newTestMetrics(t)
	var flushed bool
	h := withInfo(WithRequestMetrics(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		flushed = http.NewResponseController(w).Flush() == nil
	}), m, nil))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/pods?watch=1", nil).WithContext(context.Background()))
	if !flushed {
		t.Error("the wrapped writer cannot flush")
	}
}

// BenchmarkMetricsRecording is the cost WithRequestMetrics adds to a
// request: the record, the labels, the in-flight count and the four
// series of a LIST.
func BenchmarkMetricsRecording(b *testing.B) {
	_, m := newTestMetrics(b)
	h := WithRequestMetrics(routed(200), m, request.DefaultLongRunningRequestCheck())
	benchmarkList(b, h)
}

// BenchmarkMetricsBaseline is the same request without the filter.
func BenchmarkMetricsBaseline(b *testing.B) {
	h := routed(200)
	benchmarkList(b, h)
}

// benchmarkList serves h a LIST of configmaps, with its RequestInfo, b.N
// times (benchmarkCPU).
func benchmarkList(b *testing.B, h http.Handler) {
	r := httptest.NewRequest("GET", "/api/v1/namespaces/ns/configmaps", nil)
	info, err := request.NewRequestInfoFactory().NewRequestInfo(r)
	if err != nil {
		b.Fatal(err)
	}
	r = r.WithContext(request.WithRequestInfo(r.Context(), info))
	w := discardWriter{header: http.Header{}}
	benchmarkCPU(b, func() { h.ServeHTTP(w, r) })
}

// benchmarkCPU runs f b.N times and reports, besides wall time, the CPU
// time of the process per run: on a loaded machine wall time says little.
func benchmarkCPU(b *testing.B, f func()) {
	b.ReportAllocs()
	before := cpuTime(b)
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(cpuTime(b)-before)/float64(b.N), "cpu-ns/op")
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type discardWriter struct{ header http.Header }

func (w discardWriter) Header() http.Header         { return w.header }
func (w discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w discardWriter) WriteHeader(int)             {}
