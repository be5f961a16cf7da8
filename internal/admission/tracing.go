package admission

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/kapi-dev/kapi/internal/server/tracing"
)

// Traced returns chain with each of its halves in a span, "Admit" for the
// mutating plugins and "Validate" for the validating ones, children of
// the request's span when the request is traced; the webhooks' calls are
// children of those. The control plane wraps its chain so only when
// tracing is on.
func Traced(chain Interface) Interface { return tracedChain{chain} }

type tracedChain struct{ chain Interface }

func (t tracedChain) Admit(ctx context.Context, a *Attributes) error {
	ctx, span := start(ctx, "Admit", a)
	defer span.End()
	return ended(span, t.chain.Admit(ctx, a))
}

func (t tracedChain) Validate(ctx context.Context, a *Attributes) error {
	ctx, span := start(ctx, "Validate", a)
	defer span.End()
	return ended(span, t.chain.Validate(ctx, a))
}

func start(ctx context.Context, name string, a *Attributes) (context.Context, trace.Span) {
	ctx, span := tracing.Start(ctx, name)
	if span.IsRecording() {
		span.SetAttributes(
			attribute.String("operation", string(a.Operation)),
			attribute.String("resource", a.Resource.Resource),
			attribute.String("subresource", a.Subresource),
			attribute.Bool("dryRun", a.DryRun),
		)
	}
	return ctx, span
}

// ended marks span failed when the chain refused the request.
func ended(span trace.Span, err error) error {
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
	return err
}
