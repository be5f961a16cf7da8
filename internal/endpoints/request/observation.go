package request

import (
	"context"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// Observer is told what the layers below the request-metrics filter learn
// about a request: that an installed API route took it (only those are
// counted in apiserver_request_total, as upstream instruments only its
// routes, so an unknown path never becomes a label value), each watch
// event sent, and that the server turned it away in self-defense.
type Observer interface {
	// Routed runs once, in the goroutine serving the request, when an
	// installed resource handler takes it.
	Routed()
	// WatchEvent runs for each watch event written, with its size.
	WatchEvent(size int)
	// Terminated runs when a filter ends the request early to protect
	// the server (a timeout, a concurrency limit), with the status code
	// the client gets.
	Terminated(code int)
}

// Observation is the request-metrics filter's per-request record, carried
// in the context. Its zero value observes nothing.
type Observation struct {
	observer Observer
	routed   atomic.Bool
	// webhookNanos is the time spent calling admission webhooks, which
	// apiserver_request_sli_duration_seconds leaves out.
	webhookNanos atomic.Int64

	// FilterName and FilterStarted time the filter running now for
	// apiserver_request_filter_duration_seconds; only the filters, one
	// after the other, touch them.
	FilterName    string
	FilterStarted time.Time
	// Traced is set by the tracing filter when the request's span is
	// recorded; only then do the filters after it look for that span.
	// FilterSpan is then the span of the filter running now, and
	// FilterParent the span it is a child of, which the filters after it
	// are children of again.
	Traced                   bool
	FilterSpan, FilterParent trace.Span

	// Start is when the request-metrics filter saw the request; the
	// request's server span starts then too.
	Start time.Time
}

type observationKey struct{}

// WithObservation returns ctx carrying o, which reports to observer.
func WithObservation(ctx context.Context, o *Observation, observer Observer) context.Context {
	o.observer = observer
	return context.WithValue(ctx, observationKey{}, o)
}

// ObservationFrom returns the Observation in ctx, nil when there is none.
func ObservationFrom(ctx context.Context) *Observation {
	o, _ := ctx.Value(observationKey{}).(*Observation)
	return o
}

// MarkRouted notes that an installed API route serves the request in ctx.
func MarkRouted(ctx context.Context) {
	o := ObservationFrom(ctx)
	if o == nil || o.routed.Swap(true) {
		return
	}
	if o.observer != nil {
		o.observer.Routed()
	}
}

// Routed reports whether an installed API route took the request.
func (o *Observation) Routed() bool { return o.routed.Load() }

// WatchEvent notes a watch event of size bytes sent; o may be nil.
func (o *Observation) WatchEvent(size int) {
	if o != nil && o.observer != nil {
		o.observer.WatchEvent(size)
	}
}

// MarkTerminated notes that the request in ctx was ended early, with
// code, to protect the server: a 504 for a timeout, a 429 for a
// concurrency limit. Call it at most once per request.
func MarkTerminated(ctx context.Context, code int) {
	if o := ObservationFrom(ctx); o != nil && o.observer != nil {
		o.observer.Terminated(code)
	}
}

// AddWebhookLatency adds d to the time the request in ctx spent in
// admission webhooks.
func AddWebhookLatency(ctx context.Context, d time.Duration) {
	if o := ObservationFrom(ctx); o != nil {
		o.webhookNanos.Add(int64(d))
	}
}

// WebhookLatency is the time the request spent in admission webhooks.
func (o *Observation) WebhookLatency() time.Duration {
	return time.Duration(o.webhookNanos.Load())
}
