package admission

import (
	"context"
	"errors"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/kapi-dev/kapi/internal/server/tracing"
)

// spanRecorder is a plugin noting the span it runs in; it refuses
// validation when refuse is set.
type spanRecorder struct {
	admitIn, validateIn trace.SpanContext
	refuse              bool
}

func (p *spanRecorder) Admit(ctx context.Context, _ *Attributes) error {
	p.admitIn = trace.SpanContextFromContext(ctx)
	return nil
}

func (p *spanRecorder) Validate(ctx context.Context, _ *Attributes) error {
	p.validateIn = trace.SpanContextFromContext(ctx)
	if p.refuse {
		return errors.New("refused")
	}
	return nil
}

func TestTraced(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(tracing.Sampler(tracing.MaxSamplingRatePerMillion)), sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	p := &spanRecorder{refuse: true}
	chain := Traced(Chain{p})
	a := &Attributes{Operation: Create}
	a.Resource.Resource = "configmaps"

	// Outside a trace: no span.
	if err := chain.Admit(context.Background(), a); err != nil || p.admitIn.IsValid() || len(rec.Ended()) != 0 {
		t.Fatalf("untraced Admit: err %v, plugin in span %v, %d spans", err, p.admitIn, len(rec.Ended()))
	}

	ctx, parent := tp.Tracer("test").Start(context.Background(), "Create")
	if err := chain.Admit(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := chain.Validate(ctx, a); err == nil {
		t.Fatal("Validate passed, want the plugin's refusal")
	}
	parent.End()
	spans := rec.Ended()
	if len(spans) != 3 || spans[0].Name() != "Admit" || spans[1].Name() != "Validate" {
		t.Fatalf("ended spans = %v, want Admit, Validate, Create", spans)
	}
	for i, in := range []trace.SpanContext{p.admitIn, p.validateIn} {
		s := spans[i]
		if s.Parent().SpanID() != parent.SpanContext().SpanID() || in.SpanID() != s.SpanContext().SpanID() {
			t.Errorf("%s: parent %v, plugin in %v; want %v and %v", s.Name(), s.Parent().SpanID(), in.SpanID(), parent.SpanContext().SpanID(), s.SpanContext().SpanID())
		}
	}
	if spans[0].Status().Code == codes.Error || spans[1].Status().Code != codes.Error || spans[1].Status().Description != "refused" {
		t.Errorf("statuses %v, %v; want Admit fine, Validate an error with the refusal", spans[0].Status(), spans[1].Status())
	}
}
