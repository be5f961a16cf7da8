package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/metrics"
	"github.com/kapi-dev/kapi/internal/server/tracing"
)

// mastersAuthenticator makes "Bearer admin" a member of system:masters
// and any other bearer token a plain user.
var mastersAuthenticator = authenticator.RequestFunc(func(r *http.Request) (*authenticator.Response, bool, error) {
	resp, ok, err := tokenAuthenticator.AuthenticateRequest(r)
	if ok && resp.User.GetName() == "admin" {
		resp.User = &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}}
	}
	return resp, ok, err
})

// tracingChain is the chain with metrics, authentication and
// authorization, traced with tp when it is not nil.
func tracingChain(t testing.TB, api http.Handler, tp trace.TracerProvider) http.Handler {
	m, err := metrics.New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	c := NewConfig()
	c.Authentication = mastersAuthenticator
	c.Authorization = denyBob
	c.Metrics = m
	c.RequestTimeout = time.Minute
	if tp != nil {
		c.TracerProvider = tp
	}
	return DefaultBuildHandlerChain(api, c.complete())
}

// TestChainTracing checks where the chain traces: the server span inside
// authentication (an admin's traceparent is its parent), a span per
// filter after it, the handler below the server span; without a tracer
// provider nothing is traced and no trace context reaches the handler.
func TestChainTracing(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(tracing.Sampler(0)), sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	var inHandler trace.SpanContext
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inHandler = trace.SpanContextFromContext(r.Context())
		w.WriteHeader(http.StatusOK)
	})
	const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	send := func(h http.Handler, token string) int {
		r := authed(httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/pods", nil), token)
		r.Header.Set("traceparent", traceparent)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}

	if code := send(tracingChain(t, api, nil), "admin"); code != http.StatusOK {
		t.Fatalf("untraced chain: code %d", code)
	}
	if inHandler.IsValid() {
		t.Errorf("without a tracer provider the handler sees trace context %v", inHandler)
	}

	h := tracingChain(t, api, tp)
	if code := send(h, "admin"); code != http.StatusOK {
		t.Fatalf("code %d, want 200", code)
	}
	spans := rec.Ended()
	server := spans[len(spans)-1]
	if server.Name() != "GET /api/v1/namespaces/{:namespace}/pods" || server.Parent().SpanID().String() != "00f067aa0ba902b7" {
		t.Fatalf("last span %q with parent %v, want the server span, child of the client's", server.Name(), server.Parent().SpanID())
	}
	var names []string
	for _, s := range spans[:len(spans)-1] {
		names = append(names, s.Name())
		if s.Parent().SpanID() != server.SpanContext().SpanID() {
			t.Errorf("span %s has parent %v, want the server span", s.Name(), s.Parent().SpanID())
		}
	}
	// Without audit and APF configured: impersonation, then
	// authorization; authentication runs before the server span.
	if want := []string{"impersonation", "authorization"}; !slices.Equal(names, want) {
		t.Errorf("filter spans = %q, want %q", names, want)
	}
	if inHandler.SpanID() != server.SpanContext().SpanID() {
		t.Errorf("the handler runs in span %v, want the server span %v", inHandler.SpanID(), server.SpanContext().SpanID())
	}

	// bob's traceparent is not followed and, at rate 0, nothing is
	// recorded; his 403 comes from authorization as before.
	rec.Reset()
	if code := send(h, "bob"); code != http.StatusForbidden {
		t.Fatalf("bob: code %d, want 403", code)
	}
	if spans := rec.Ended(); len(spans) != 0 {
		t.Errorf("bob's request recorded %d spans, want none", len(spans))
	}
}

// BenchmarkChainTracing is the cost of tracing on the whole filter chain
// (metrics, authentication, impersonation, max in flight, authorization,
// timeout...) for an admin's GET: off (no --tracing-config-file), on at
// samplingRatePerMillion 0 (the default: a non-recording span per
// request), and on with every request sampled into a provider that
// exports nothing (the cost of building the spans, not of sending them).
func BenchmarkChainTracing(b *testing.B) {
	for _, bc := range []struct {
		name string
		tp   trace.TracerProvider
	}{
		{"off", nil},
		{"sampled-0", sdktrace.NewTracerProvider(sdktrace.WithSampler(tracing.Sampler(0)))},
		{"sampled-all", sdktrace.NewTracerProvider(sdktrace.WithSampler(tracing.Sampler(tracing.MaxSamplingRatePerMillion)))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := tracingChain(b, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }), bc.tp)
			r := authed(httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/pods", nil), "admin")
			w := &discardWriter{header: http.Header{}}
			b.ReportAllocs()
			before := processCPU(b)
			for b.Loop() {
				h.ServeHTTP(w, r)
			}
			// On a loaded machine the process's CPU time says more
			// than wall time.
			b.ReportMetric(float64(processCPU(b)-before)/float64(b.N), "cpu-ns/op")
		})
	}
}

// discardWriter is a ResponseWriter that keeps nothing.
type discardWriter struct{ header http.Header }

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}

// processCPU is the CPU time the test process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
