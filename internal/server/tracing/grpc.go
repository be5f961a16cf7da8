package tracing

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// UnaryClientInterceptor traces a gRPC client's unary calls, as upstream
// traces its etcd client with otelgrpc: a call made inside a recording
// span is a client span named after the method ("etcdserverpb.KV/Txn"),
// and every call inside a trace carries its context in the W3C metadata.
// Outside a trace a call costs one context lookup.
func UnaryClientInterceptor(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	parent := trace.SpanFromContext(ctx)
	if !parent.SpanContext().IsValid() {
		return invoker(ctx, method, req, reply, cc, opts...)
	}
	if !parent.IsRecording() {
		return invoker(injectMetadata(ctx), method, req, reply, cc, opts...)
	}
	name := strings.TrimPrefix(method, "/")
	ctx, span := parent.TracerProvider().Tracer(ScopeName).Start(ctx, name,
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(semconv.RPCSystemNameGRPC, semconv.RPCMethod(name), semconv.ServerAddress(cc.Target())))
	defer span.End()
	err := invoker(injectMetadata(ctx), method, req, reply, cc, opts...)
	s, _ := status.FromError(err)
	span.SetAttributes(semconv.RPCResponseStatusCode(s.Code().String()))
	if err != nil {
		span.SetStatus(codes.Error, s.Message())
	}
	return err
}

// injectMetadata adds the trace context of ctx to its outgoing metadata,
// on a copy: the metadata in a context is shared.
func injectMetadata(ctx context.Context) context.Context {
	md, _ := metadata.FromOutgoingContext(ctx)
	md = md.Copy()
	propagator.Inject(ctx, metadataCarrier(md))
	return metadata.NewOutgoingContext(ctx, md)
}

// metadataCarrier lets the propagator write gRPC metadata.
type metadataCarrier metadata.MD

func (c metadataCarrier) Get(key string) string {
	if v := metadata.MD(c).Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (c metadataCarrier) Set(key, value string) { metadata.MD(c).Set(key, value) }

func (c metadataCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}
