package tracing

import (
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// Transport wraps rt, as upstream wraps its webhook and loopback clients
// in otelhttp's transport: a request sent inside a recording span is a
// client span of its own, "HTTP <method>", whose context the request
// carries in its traceparent header (with the span's baggage); inside a
// request that was not sampled it carries that request's trace context,
// flagged not sampled; outside any trace it goes out untouched.
func Transport(rt http.RoundTripper) http.RoundTripper { return &transport{next: rt} }

type transport struct{ next http.RoundTripper }

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	parent := trace.SpanFromContext(ctx)
	if !parent.SpanContext().IsValid() {
		return t.next.RoundTrip(req)
	}
	if !parent.IsRecording() {
		// A RoundTripper must not change its request.
		req = req.Clone(ctx)
		propagator.Inject(ctx, propagation.HeaderCarrier(req.Header))
		return t.next.RoundTrip(req)
	}
	ctx, span := parent.TracerProvider().Tracer(ScopeName).Start(ctx, "HTTP "+req.Method,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(clientAttributes(req)...))
	defer span.End()
	req = req.Clone(ctx)
	propagator.Inject(ctx, propagation.HeaderCarrier(req.Header))
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		return resp, err
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(resp.StatusCode))
	if resp.StatusCode >= http.StatusBadRequest {
		span.SetStatus(codes.Error, "")
	}
	return resp, nil
}

// CloseIdleConnections passes on to the wrapped transport, so that a
// client cache can still free the connections of a client it drops.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// clientAttributes are the semantic-convention attributes of an outgoing
// request; the URL loses any user information.
func clientAttributes(req *http.Request) []attribute.KeyValue {
	u := *req.URL
	u.User = nil
	attrs := []attribute.KeyValue{
		semconv.HTTPRequestMethodKey.String(req.Method),
		semconv.URLFull(u.String()),
		semconv.ServerAddress(u.Hostname()),
	}
	port, err := strconv.Atoi(u.Port())
	switch {
	case err == nil:
	case u.Scheme == "https":
		port = 443
	default:
		port = 80
	}
	return append(attrs, semconv.ServerPort(port))
}
