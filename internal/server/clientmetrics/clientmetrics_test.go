package clientmetrics

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestInstrument runs a client built from a copy of an instrumented
// config against a fake server: each request is counted by code, method
// and host; reads are timed and sized, watches are not; two servers'
// metrics stay apart.
func TestInstrument(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Query().Get("watch") == "true":
			w.WriteHeader(http.StatusOK)
		case r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns"}}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`))
		}
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")

	reg, other := prometheus.NewRegistry(), prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(other); err != nil {
		t.Fatal(err)
	}
	cfg := &rest.Config{Host: srv.URL, QPS: -1}
	m.Instrument(cfg)
	cs, err := kubernetes.NewForConfig(rest.CopyConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cms := cs.CoreV1().ConfigMaps("ns")
	if _, err := cms.Get(ctx, "missing", metav1.GetOptions{}); err == nil {
		t.Fatal("got the missing configmap")
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()

	want := `
# HELP rest_client_requests_total [ALPHA] Number of HTTP requests, partitioned by status code, method, and host.
# TYPE rest_client_requests_total counter
rest_client_requests_total{code="200",host="HOST",method="GET"} 1
rest_client_requests_total{code="201",host="HOST",method="POST"} 1
rest_client_requests_total{code="404",host="HOST",method="GET"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(strings.ReplaceAll(want, "HOST", host)), "rest_client_requests_total"); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		family string
		verb   string
		count  uint64
		sum    float64 // when not 0
	}{
		{"rest_client_request_duration_seconds", "GET", 1, 0}, // the watch is not timed
		{"rest_client_request_duration_seconds", "POST", 1, 0},
		{"rest_client_response_size_bytes", "POST", 1, float64(len(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns"}}`))},
		{"rest_client_request_size_bytes", "GET", 2, 0},
		{"rest_client_request_size_bytes", "POST", 1, 0},
	} {
		h := histogram(t, reg, c.family, map[string]string{"verb": c.verb, "host": host})
		if h.GetSampleCount() != c.count || (c.sum != 0 && h.GetSampleSum() != c.sum) {
			t.Errorf("%s{verb=%q}: %d samples summing to %v, want %d (sum %v)", c.family, c.verb, h.GetSampleCount(), h.GetSampleSum(), c.count, c.sum)
		}
	}
	if n := testutil.CollectAndCount(other); n != 0 {
		t.Errorf("the other server's registry has %d series, want none", n)
	}
}

// TestInstrumentKeepsWrapTransport: a wrapper set before stays in the
// chain.
func TestInstrumentKeepsWrapTransport(t *testing.T) {
	m, err := New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	called := false
	cfg := &rest.Config{WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
		called = true
		return rt
	}}
	m.Instrument(cfg)
	if _, ok := cfg.WrapTransport(http.DefaultTransport).(*roundTripper); !ok || !called {
		t.Errorf("wrapped transport: recorder %v, earlier wrapper called %v", ok, called)
	}
	(*Metrics)(nil).Instrument(&rest.Config{})
}

func TestIsWatch(t *testing.T) {
	for query, want := range map[string]bool{
		"watch=true": true, "watch=1": true, "watch=false": false, "watch=0": false,
		"resourceVersion=1": false, "labelSelector=watch%3Dtrue": false,
	} {
		req := &http.Request{URL: &url.URL{RawQuery: query}}
		if got := isWatch(req); got != want {
			t.Errorf("isWatch(%q) = %v, want %v", query, got, want)
		}
	}
}

func histogram(t *testing.T, reg *prometheus.Registry, family string, labels map[string]string) *dto.Histogram {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() != family {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if v, ok := labels[l.GetName()]; ok && v != l.GetValue() {
					continue series
				}
			}
			return m.GetHistogram()
		}
	}
	return &dto.Histogram{}
}
