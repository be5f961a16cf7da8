package tracing

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// recordingProvider samples every root span and records every span.
func recordingProvider(t *testing.T) (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(Sampler(MaxSamplingRatePerMillion)), sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, rec
}

func TestStartWithoutARecordingSpan(t *testing.T) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(Sampler(0)))
	_, unsampled := tp.Tracer("test").Start(context.Background(), "root")
	for name, ctx := range map[string]context.Context{
		"no span":        context.Background(),
		"unsampled span": trace.ContextWithSpan(context.Background(), unsampled),
	} {
		t.Run(name, func(t *testing.T) {
			got, span := Start(ctx, "child")
			if got != ctx || span.IsRecording() || !span.SpanContext().Equal(trace.SpanContextFromContext(ctx)) {
				t.Fatalf("Start returned a new context or span: %v, recording %v", span.SpanContext(), span.IsRecording())
			}
			if allocs := testing.AllocsPerRun(100, func() {
				_, s := Start(ctx, "child")
				s.AddEvent("event")
				s.End()
			}); allocs != 0 {
				t.Errorf("Start and End allocate %v times, want 0", allocs)
			}
		})
	}
}

func TestStartChildOfRecordingSpan(t *testing.T) {
	tp, rec := recordingProvider(t)
	ctx, parent := tp.Tracer("test").Start(context.Background(), "parent")
	_, child := Start(ctx, "child")
	child.End()
	parent.End()
	spans := rec.Ended()
	if len(spans) != 2 || spans[0].Name() != "child" {
		t.Fatalf("ended spans = %v, want child then parent", spans)
	}
	if got, want := spans[0].Parent().SpanID(), parent.SpanContext().SpanID(); got != want {
		t.Errorf("child's parent = %v, want %v", got, want)
	}
}

// TestSampler checks upstream's sampling: a sampled remote parent is
// followed even at rate 0, an unsampled one even at a million, and a root
// is sampled at the rate.
func TestSampler(t *testing.T) {
	remote := func(sampled bool) context.Context {
		sc := trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, Remote: true,
		})
		if sampled {
			sc = sc.WithTraceFlags(trace.FlagsSampled)
		}
		return trace.ContextWithRemoteSpanContext(context.Background(), sc)
	}
	for _, tc := range []struct {
		name string
		rate int32
		ctx  context.Context
		want bool
	}{
		{"root at 0", 0, context.Background(), false},
		{"root at a million", MaxSamplingRatePerMillion, context.Background(), true},
		{"sampled parent at 0", 0, remote(true), true},
		{"unsampled parent at a million", MaxSamplingRatePerMillion, remote(false), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(Sampler(tc.rate)))
			_, span := tp.Tracer("test").Start(tc.ctx, "span")
			if got := span.SpanContext().IsSampled(); got != tc.want {
				t.Errorf("sampled = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestTransport checks what a webhook receives: a client span's context
// inside a recording span, the request's own unsampled context inside an
// unsampled one, nothing outside a trace.
func TestTransport(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = r.Header.Clone() }))
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: Transport(http.DefaultTransport)}
	send := func(ctx context.Context) trace.SpanContext {
		t.Helper()
		got = nil
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/hook", nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if req.Header.Get("traceparent") != "" {
			t.Error("the transport changed the caller's request")
		}
		return trace.SpanContextFromContext(Propagator().Extract(context.Background(), propagation.HeaderCarrier(got)))
	}

	if sc := send(context.Background()); sc.IsValid() {
		t.Errorf("outside a trace the request carries %v", sc)
	}

	tp, rec := recordingProvider(t)
	ctx, parent := tp.Tracer("test").Start(context.Background(), "parent")
	sc := send(ctx)
	parent.End()
	spans := rec.Ended()
	if len(spans) != 2 || spans[0].Name() != "HTTP POST" || spans[0].SpanKind() != trace.SpanKindClient {
		t.Fatalf("ended spans = %v, want the client span HTTP POST, then the parent", spans)
	}
	if sc.TraceID() != parent.SpanContext().TraceID() || sc.SpanID() != spans[0].SpanContext().SpanID() || !sc.IsSampled() {
		t.Errorf("traceparent = %v, want the client span %v, sampled", sc, spans[0].SpanContext())
	}

	unsampledTP := sdktrace.NewTracerProvider(sdktrace.WithSampler(Sampler(0)))
	ctx, unsampled := unsampledTP.Tracer("test").Start(context.Background(), "root")
	if sc := send(ctx); sc.TraceID() != unsampled.SpanContext().TraceID() || sc.IsSampled() {
		t.Errorf("inside an unsampled request traceparent = %v, want trace %v unsampled", sc, unsampled.SpanContext().TraceID())
	}
}

// closeCounter counts CloseIdleConnections calls.
type closeCounter struct {
	http.RoundTripper
	closed int
}

func (c *closeCounter) CloseIdleConnections() { c.closed++ }

func TestTransportClosesIdleConnections(t *testing.T) {
	next := &closeCounter{RoundTripper: http.DefaultTransport}
	(&http.Client{Transport: Transport(next)}).CloseIdleConnections()
	if next.closed != 1 {
		t.Errorf("the wrapped transport's CloseIdleConnections ran %d times, want 1", next.closed)
	}
}
