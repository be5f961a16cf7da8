package tracing

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of kapi's spans.
const ScopeName = "github.com/kapi-dev/kapi"

// Start starts the span name as a child of the span in ctx, from that
// span's provider, when that span is recording. Otherwise — tracing is
// off, or the request was not sampled, so a child would not be either —
// it returns ctx and that non-recording span unchanged, allocating
// nothing; ending it, or adding events and attributes to it, does
// nothing. Callers build attributes only when span.IsRecording().
func Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, parent
	}
	return parent.TracerProvider().Tracer(ScopeName).Start(ctx, name, opts...)
}

// Propagator reads and writes W3C trace context (traceparent, tracestate)
// and baggage headers, as upstream's components do. It holds no state.
func Propagator() propagation.TextMapPropagator { return propagator }

var propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
