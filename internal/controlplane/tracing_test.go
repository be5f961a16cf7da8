package controlplane

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/internal/server/tracing"
)

// collector is an OTLP gRPC trace collector on a free loopback port that
// keeps every span it is sent.
type collector struct {
	collectortrace.UnimplementedTraceServiceServer
	addr string

	mu      sync.Mutex
	spans   []collected
	changed chan struct{} // closed, and replaced, on each export
}

// collected is a span and the service.name of its resource.
type collected struct {
	*tracepb.Span
	service string
}

func startCollector(t *testing.T) *collector {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{addr: l.Addr().String(), changed: make(chan struct{})}
	srv := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(srv, c)
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(l) }()
	// Registered before the server's cleanup, so run after it: the
	// spans flushed at shutdown still find the collector.
	t.Cleanup(func() { srv.Stop(); <-served })
	return c
}

func (c *collector) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		var service string
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				service = kv.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				c.spans = append(c.spans, collected{s, service})
			}
		}
	}
	close(c.changed)
	c.changed = make(chan struct{})
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

// waitUntil returns every span received once done says they are
// enough, waking on each export; it fails the test after a minute.
func (c *collector) waitUntil(t *testing.T, what string, done func([]collected) bool) []collected {
	t.Helper()
	timeout := time.NewTimer(time.Minute)
	defer timeout.Stop()
	for {
		c.mu.Lock()
		spans, changed := append([]collected(nil), c.spans...), c.changed
		c.mu.Unlock()
		if done(spans) {
			return spans
		}
		select {
		case <-changed:
		case <-timeout.C:
			t.Fatalf("the collector never received %s; it has %s", what, spanNames(spans))
		}
	}
}

// waitFor returns the spans of one trace once done says they are all
// there.
func (c *collector) waitFor(t *testing.T, traceID []byte, what string, done func([]collected) bool) []collected {
	t.Helper()
	var spans []collected
	c.waitUntil(t, what, func(all []collected) bool {
		spans = inTrace(all, traceID)
		return done(spans)
	})
	return spans
}

func inTrace(all []collected, traceID []byte) []collected {
	var spans []collected
	for _, s := range all {
		if bytes.Equal(s.TraceId, traceID) {
			spans = append(spans, s)
		}
	}
	return spans
}

// spanNames names spans, the last 30 of them when there are more.
func spanNames(spans []collected) string {
	var names []string
	for _, s := range spans[max(0, len(spans)-30):] {
		names = append(names, s.Name)
	}
	return fmt.Sprintf("%d spans, the last %q", len(spans), names)
}

func named(spans []collected, name string) *collected {
	for i := range spans {
		if spans[i].Name == name {
			return &spans[i]
		}
	}
	return nil
}

func hasAll(names ...string) func([]collected) bool {
	return func(spans []collected) bool {
		for _, n := range names {
			if named(spans, n) == nil {
				return false
			}
		}
		return true
	}
}

// newTraceparent returns a sampled W3C traceparent of a fresh trace, and
// its trace and span ids.
func newTraceparent(t *testing.T) (header string, traceID, spanID []byte) {
	traceID, spanID = make([]byte, 16), make([]byte, 8)
	if _, err := rand.Read(traceID); err != nil {
		t.Fatal(err)
	}
	if _, err := rand.Read(spanID); err != nil {
		t.Fatal(err)
	}
	return "00-" + hex.EncodeToString(traceID) + "-" + hex.EncodeToString(spanID) + "-01", traceID, spanID
}

// withTracing sends every request's spans to col.
func withTracing(col *collector) func(*Config) {
	return func(c *Config) {
		c.Tracing = &tracing.Config{Endpoint: col.addr, SamplingRatePerMillion: tracing.MaxSamplingRatePerMillion}
		c.tracingBatchTimeout = 10 * time.Millisecond
	}
}

// send makes one request with a traceparent through client and returns
// the status code.
func send(t *testing.T, client *http.Client, method, url, body, traceparent string) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("traceparent", traceparent)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

func httpClient(t *testing.T, cfg *rest.Config) *http.Client {
	t.Helper()
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTracingThroughServer runs kapi on embedded etcd with
// --tracing-config-file at a million per million. An admin's create
// continues the admin's trace: the server span is a child of the
// client's, the filters after authentication, the Create handler, the
// admission phases and the etcd calls are in it. An anonymous caller's
// trace context is not followed: its request is a new trace linked to
// the caller's span.
func TestTracingThroughServer(t *testing.T) {
	col := startCollector(t)
	s := startServer(t, "etcd3", withoutControllers, withTracing(col), func(c *Config) { c.Security.AnonymousAuth = true })
	base := s.restCfg.Host

	traceparent, traceID, clientSpan := newTraceparent(t)
	if code := send(t, httpClient(t, s.restCfg), http.MethodPost, base+"/api/v1/namespaces/bench/configmaps",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"traced"}}`, traceparent); code != http.StatusCreated {
		t.Fatalf("create: status %d", code)
	}
	const serverName = "POST /api/v1/namespaces/{:namespace}/configmaps"
	spans := col.waitFor(t, traceID, "the admin's create", hasAll(serverName, "authorization", "Create", "Admit", "Validate", "etcdserverpb.KV/Txn"))
	server := named(spans, serverName)
	if server.Kind != tracepb.Span_SPAN_KIND_SERVER || !bytes.Equal(server.ParentSpanId, clientSpan) || server.service != tracing.ServiceName {
		t.Errorf("server span: kind %v, parent %x, service %q; want a server span, child of the client's %x, of service %q",
			server.Kind, server.ParentSpanId, server.service, clientSpan, tracing.ServiceName)
	}
	for _, name := range []string{"authorization", "Create"} {
		if s := named(spans, name); !bytes.Equal(s.ParentSpanId, server.SpanId) {
			t.Errorf("span %s has parent %x, want the server span %x", name, s.ParentSpanId, server.SpanId)
		}
	}
	create := named(spans, "Create")
	for _, name := range []string{"Admit", "Validate"} {
		if s := named(spans, name); !bytes.Equal(s.ParentSpanId, create.SpanId) {
			t.Errorf("span %s has parent %x, want Create %x", name, s.ParentSpanId, create.SpanId)
		}
	}
	if txn := named(spans, "etcdserverpb.KV/Txn"); txn.Kind != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("etcd span kind %v, want client", txn.Kind)
	}

	// Anonymous: authenticated, so traced, but not trusted.
	anonParent, anonTrace, anonSpan := newTraceparent(t)
	if code := send(t, httpClient(t, rest.AnonymousClientConfig(s.restCfg)), http.MethodGet, base+"/version", "", anonParent); code != http.StatusOK {
		t.Fatalf("anonymous /version: status %d", code)
	}
	var root *collected
	all := col.waitUntil(t, "the anonymous request's span, linked to its caller's", func(all []collected) bool {
		for i, s := range all {
			for _, l := range s.Links {
				if bytes.Equal(l.TraceId, anonTrace) && bytes.Equal(l.SpanId, anonSpan) {
					root = &all[i]
					return true
				}
			}
		}
		return false
	})
	if root.Name != "GET" || root.Kind != tracepb.Span_SPAN_KIND_SERVER || len(root.ParentSpanId) != 0 || bytes.Equal(root.TraceId, anonTrace) {
		t.Errorf("anonymous request's span %q (kind %v) in trace %x with parent %x; want a GET server span, root of a new trace",
			root.Name, root.Kind, root.TraceId, root.ParentSpanId)
	}
	if spans := inTrace(all, anonTrace); len(spans) > 0 {
		t.Errorf("spans %s are in the anonymous caller's trace", spanNames(spans))
	}
}

// TestTracingAdmissionWebhook: a validating webhook called during a
// traced create receives a traceparent of the request's trace, whose
// span is the webhook call's client span.
func TestTracingAdmissionWebhook(t *testing.T) {
	col := startCollector(t)
	var mu sync.Mutex
	seen := map[string]string{} // object name → traceparent
	hook := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		seen[review.Request.Name] = r.Header.Get("traceparent")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&admissionv1.AdmissionReview{TypeMeta: review.TypeMeta,
			Response: &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}})
	}))
	t.Cleanup(hook.Close)
	s := startServer(t, "memory", withoutControllers, withTracing(col))
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	none := admissionregistrationv1.SideEffectClassNone
	hookURL := hook.URL + "/validate"
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(context.Background(), &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "traced"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "traced.example.com",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &hookURL, CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw})},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
			}},
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The configuration reaches the plugin through an informer: create
	// until the webhook is called.
	client := httpClient(t, s.restCfg)
	var name, traceparent string
	var traceID []byte
	attempt := 0
	eventually(t, "the webhook to be called", func() bool {
		attempt++
		name = fmt.Sprintf("traced-%d", attempt)
		traceparent, traceID, _ = newTraceparent(t)
		if code := send(t, client, http.MethodPost, s.restCfg.Host+"/api/v1/namespaces/bench/configmaps",
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"`+name+`"}}`, traceparent); code != http.StatusCreated {
			t.Fatalf("create: status %d", code)
		}
		mu.Lock()
		defer mu.Unlock()
		_, called := seen[name]
		return called
	})
	mu.Lock()
	got := seen[name]
	mu.Unlock()
	parts := strings.Split(got, "-")
	if len(parts) != 4 || parts[1] != hex.EncodeToString(traceID) || parts[3] != "01" {
		t.Fatalf("the webhook got traceparent %q, want one of trace %x, sampled (the client sent %s)", got, traceID, traceparent)
	}
	spans := col.waitFor(t, traceID, "the webhook call's span", hasAll("HTTP POST", "Validate"))
	call := named(spans, "HTTP POST")
	if hex.EncodeToString(call.SpanId) != parts[2] || call.Kind != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("the webhook's parent span is %s, want the client span HTTP POST %x", parts[2], call.SpanId)
	}
	if validate := named(spans, "Validate"); !bytes.Equal(call.ParentSpanId, validate.SpanId) {
		t.Errorf("HTTP POST has parent %x, want the Validate span %x", call.ParentSpanId, validate.SpanId)
	}
}

// TestTracerProviderFlushesOnShutdown: the provider holds a span up to
// 5s before sending it; shutting it down, as Run does on exit, sends it
// at once. Without --tracing-config-file there is no provider.
func TestTracerProviderFlushesOnShutdown(t *testing.T) {
	logger := slog.New(slog.DiscardHandler)
	tp, stop, err := newTracerProvider(context.Background(), &Config{}, logger)
	if err != nil || tp != nil {
		t.Fatalf("without tracing: provider %v, err %v; want none", tp, err)
	}
	stop()

	col := startCollector(t)
	c := &Config{Tracing: &tracing.Config{Endpoint: col.addr, SamplingRatePerMillion: tracing.MaxSamplingRatePerMillion}}
	tp, stop, err = newTracerProvider(context.Background(), c, logger)
	if err != nil {
		t.Fatal(err)
	}
	_, span := tp.Tracer("test").Start(context.Background(), "flushed")
	span.End()
	stop()
	col.mu.Lock()
	defer col.mu.Unlock()
	traceID := span.SpanContext().TraceID()
	if spans := inTrace(col.spans, traceID[:]); len(spans) != 1 || spans[0].Name != "flushed" || spans[0].service != tracing.ServiceName {
		t.Errorf("after shutdown the collector has %s of the trace, want the span flushed of service %q", spanNames(spans), tracing.ServiceName)
	}
}
