package filters

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/server/tracing"
)

// The caller's span, as a client sends it.
const (
	clientTraceID    = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpanID     = "00f067aa0ba902b7"
	clientTraceparen = "00-" + clientTraceID + "-" + clientSpanID + "-01"
)

// recorder returns a provider that samples at perMillion and records
// every span it samples.
func recorder(t testing.TB, perMillion int32) (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(tracing.Sampler(perMillion)), sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, rec
}

func spanNamed(t *testing.T, spans []sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	for _, s := range spans {
		if s.Name() == name {
			return s
		}
	}
	var names []string
	for _, s := range spans {
		names = append(names, s.Name())
	}
	t.Fatalf("no span %q among %q", name, names)
	return nil
}

func attr(s sdktrace.ReadOnlySpan, key attribute.Key) attribute.Value {
	for _, kv := range s.Attributes() {
		if kv.Key == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

// TestTracingFollowsOnlyPrivilegedCallers checks whose trace context the
// server span continues: system:masters' and system:monitoring's; anyone
// else's request is a new root linked to it, even at a sampling rate of 0
// for the caller that sampled it.
func TestTracingFollowsOnlyPrivilegedCallers(t *testing.T) {
	for _, tc := range []struct {
		name       string
		user       user.Info
		rate       int32
		wantParent bool // the client's span is the parent
		wantSpan   bool // the request is traced at all
	}{
		{"system:masters at rate 0", &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}}, 0, true, true},
		{"system:monitoring at rate 0", &user.DefaultInfo{Name: "prom", Groups: []string{user.MonitoringGroup}}, 0, true, true},
		{"plain user at rate 0", &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}}, 0, false, false},
		{"plain user at a million", &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}}, tracing.MaxSamplingRatePerMillion, false, true},
		{"no user at a million", nil, tracing.MaxSamplingRatePerMillion, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp, rec := recorder(t, tc.rate)
			var inner trace.SpanContext
			var innerBaggage string
			h := asUser(WithTracing(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				inner = trace.SpanContextFromContext(r.Context())
				innerBaggage = baggage.FromContext(r.Context()).Member("tenant").Value()
			}), tp), tc.user)
			req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
			req.Header.Set("traceparent", clientTraceparen)
			req.Header.Set("baggage", "tenant=blue")
			h.ServeHTTP(httptest.NewRecorder(), req)

			spans := rec.Ended()
			if !tc.wantSpan {
				if len(spans) != 0 {
					t.Fatalf("ended spans = %v, want none", spans)
				}
				if inner.TraceID().String() == clientTraceID || innerBaggage != "" {
					t.Errorf("the handler sees the caller's trace %v and baggage %q", inner.TraceID(), innerBaggage)
				}
				return
			}
			if len(spans) != 1 {
				t.Fatalf("ended spans = %v, want the server span", spans)
			}
			s := spans[0]
			if s.SpanKind() != trace.SpanKindServer || s.Name() != "GET" {
				t.Errorf("span %q of kind %v, want GET, a server span", s.Name(), s.SpanKind())
			}
			if inner.SpanID() != s.SpanContext().SpanID() {
				t.Errorf("the handler's context holds span %v, want the server span %v", inner.SpanID(), s.SpanContext().SpanID())
			}
			gotParent := s.Parent().TraceID().String() == clientTraceID && s.Parent().SpanID().String() == clientSpanID
			if gotParent != tc.wantParent {
				t.Errorf("parent = %v (remote %v), want the client's span: %v", s.Parent().SpanID(), s.Parent().IsRemote(), tc.wantParent)
			}
			if gotBaggage := innerBaggage == "blue"; gotBaggage != tc.wantParent {
				t.Errorf("baggage tenant = %q, want the caller's kept: %v", innerBaggage, tc.wantParent)
			}
			if tc.wantParent {
				if len(s.Links()) != 0 {
					t.Errorf("links = %v, want none", s.Links())
				}
				return
			}
			if s.Parent().IsValid() || s.SpanContext().TraceID().String() == clientTraceID {
				t.Errorf("span %v has parent %v, want a new root", s.SpanContext(), s.Parent())
			}
			if l := s.Links(); len(l) != 1 || l[0].SpanContext.TraceID().String() != clientTraceID || l[0].SpanContext.SpanID().String() != clientSpanID {
				t.Errorf("links = %v, want one to the caller's span", l)
			}
		})
	}
}

func TestTracingSpan(t *testing.T) {
	tp, rec := recorder(t, tracing.MaxSamplingRatePerMillion)
	reg := func(code int) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(code)
			w.Write([]byte("12345"))
		})
	}
	_, m := newTestMetrics(t)
	for _, tc := range []struct {
		method, url string
		code        int
		wantName    string
		wantError   bool
	}{
		{"GET", "/api/v1/namespaces/ns/configmaps/a", 200, "GET /api/v1/namespaces/{:namespace}/configmaps/{:name}", false},
		{"POST", "/apis/apps/v1/namespaces/ns/deployments", 201, "POST /apis/apps/v1/namespaces/{:namespace}/deployments", false},
		{"PUT", "/apis/apps/v1/namespaces/ns/deployments/d/status", 409, "PUT /apis/apps/v1/namespaces/{:namespace}/deployments/{:name}/status", false},
		{"GET", "/api/v1/nodes", 500, "GET /api/v1/nodes", true},
		{"GET", "/version?x=1", 200, "GET", false},
	} {
		t.Run(tc.wantName, func(t *testing.T) {
			rec.Reset()
			h := withInfo(WithRequestMetrics(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				r = r.WithContext(request.WithAuditID(r.Context(), "audit-1"))
				WithTracing(reg(tc.code), tp).ServeHTTP(w, r)
			}), m, nil))
			before := time.Now()
			req := httptest.NewRequest(tc.method, tc.url, nil)
			req.Header.Set("User-Agent", "kubectl/v1.37")
			h.ServeHTTP(httptest.NewRecorder(), req)
			spans := rec.Ended()
			if len(spans) != 1 {
				t.Fatalf("ended spans = %v, want one", spans)
			}
			s := spans[0]
			if s.Name() != tc.wantName {
				t.Errorf("name = %q, want %q", s.Name(), tc.wantName)
			}
			for key, want := range map[attribute.Key]attribute.Value{
				"audit-id":                  attribute.StringValue("audit-1"),
				"http.request.method":       attribute.StringValue(tc.method),
				"http.response.status_code": attribute.IntValue(tc.code),
				"http.response.body.size":   attribute.IntValue(5),
				"http.target":               attribute.StringValue(req.URL.RequestURI()),
				"user_agent.original":       attribute.StringValue("kubectl/v1.37"),
				"server.address":            attribute.StringValue("example.com"),
			} {
				if got := attr(s, key); got != want {
					t.Errorf("%s = %v, want %v", key, got.Emit(), want.Emit())
				}
			}
			if got := s.Status().Code == codes.Error; got != tc.wantError {
				t.Errorf("status = %v, want an error: %v", s.Status(), tc.wantError)
			}
			// The span starts with the request metrics' clock, before
			// the filter itself ran.
			if s.StartTime().Before(before) || s.StartTime().After(s.EndTime()) {
				t.Errorf("span from %v to %v, request started after %v", s.StartTime(), s.EndTime(), before)
			}
		})
	}
}

// nextHandler is comparable, so a test can tell it came back unwrapped.
type nextHandler struct{ called bool }

func (h *nextHandler) ServeHTTP(http.ResponseWriter, *http.Request) { h.called = true }

func TestTracingOffInstallsNothing(t *testing.T) {
	next := &nextHandler{}
	if got := WithTracing(next, nil); got != http.Handler(next) {
		t.Errorf("WithTracing(next, nil) = %T, want next itself", got)
	}
}

// TestTracingUnsampledRequest checks that a request the sampler leaves
// out records nothing, yet carries a trace context the layers below
// propagate as not sampled.
func TestTracingUnsampledRequest(t *testing.T) {
	tp, rec := recorder(t, 0)
	_, m := newTestMetrics(t)
	var inner trace.Span
	h := withInfo(WithRequestMetrics(WithTracing(TrackStarted(TrackCompleted(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner = trace.SpanFromContext(r.Context())
	}), m), m, "authorization"), tp), m, nil))
	do(h, "GET", "/api/v1/pods")
	if spans := rec.Ended(); len(spans) != 0 {
		t.Fatalf("ended spans = %v, want none", spans)
	}
	if inner.IsRecording() || !inner.SpanContext().IsValid() || inner.SpanContext().IsSampled() {
		t.Errorf("handler's span: recording %v, context %v; want a valid, unsampled, non-recording one", inner.IsRecording(), inner.SpanContext())
	}
}

// TestFilterSpans checks the spans TrackStarted and TrackCompleted make:
// one per filter, children of the server span, each ended where its
// filter hands on, so that the handler's spans are the server span's
// children; a filter that answers itself still ends its span.
func TestFilterSpans(t *testing.T) {
	tp, rec := recorder(t, tracing.MaxSamplingRatePerMillion)
	_, m := newTestMetrics(t)
	admin := &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup}}
	var handlerParent trace.SpanContext
	var filterEndedFirst bool
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handlerParent = trace.SpanContextFromContext(r.Context())
		filterEndedFirst = len(rec.Ended()) == 2
		_, span := tracing.Start(r.Context(), "Get")
		span.End()
	})
	deny := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("deny") != "" {
				w.WriteHeader(http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	// audit, then authorization, as the chain orders them.
	h := TrackCompleted(api, m)
	h = TrackStarted(deny(h), m, "authorization")
	h = TrackCompleted(h, m)
	h = TrackStarted(h, m, "audit")
	h = withInfo(WithRequestMetrics(asUser(WithTracing(h, tp), admin), m, nil))

	do(h, "GET", "/api/v1/namespaces/ns/pods/p")
	if !filterEndedFirst {
		t.Error("the filters' spans had not ended when the handler ran")
	}
	spans := rec.Ended()
	server := spanNamed(t, spans, "GET /api/v1/namespaces/{:namespace}/pods/{:name}")
	for _, name := range []string{"audit", "authorization", "Get"} {
		s := spanNamed(t, spans, name)
		if s.Parent().SpanID() != server.SpanContext().SpanID() {
			t.Errorf("span %s has parent %v, want the server span %v", name, s.Parent().SpanID(), server.SpanContext().SpanID())
		}
	}
	if handlerParent.SpanID() != server.SpanContext().SpanID() {
		t.Errorf("the handler runs in span %v, want the server span", handlerParent.SpanID())
	}

	rec.Reset()
	if code := do(h, "GET", "/api/v1/namespaces/ns/pods/p?deny=1").Code; code != http.StatusForbidden {
		t.Fatalf("code = %d, want 403", code)
	}
	spans = rec.Ended()
	if len(spans) != 3 {
		t.Fatalf("ended spans = %v, want audit, authorization and the server span", spans)
	}
	spanNamed(t, spans, "authorization")
}

// BenchmarkTracingFilter is the cost of the filter on a request: off (no
// filter), on at sampling rate 0 (a non-recording span and a context),
// and on with every request recorded into a processor that drops the
// spans.
func BenchmarkTracingFilter(b *testing.B) {
	for _, bc := range []struct {
		name string
		tp   trace.TracerProvider
	}{
		{"off", nil},
		{"sampled-0", sdktrace.NewTracerProvider(sdktrace.WithSampler(tracing.Sampler(0)))},
		{"sampled-all", sdktrace.NewTracerProvider(sdktrace.WithSampler(tracing.Sampler(tracing.MaxSamplingRatePerMillion)))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			benchmarkList(b, WithTracing(ok, bc.tp))
		})
	}
}
