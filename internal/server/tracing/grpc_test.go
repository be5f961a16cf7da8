package tracing

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	grpccodes "google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

func TestUnaryClientInterceptor(t *testing.T) {
	cc, err := grpc.NewClient("passthrough:///etcd", grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	var sent trace.SpanContext
	invoke := func(fail error) grpc.UnaryInvoker {
		return func(ctx context.Context, _ string, _, _ any, _ *grpc.ClientConn, _ ...grpc.CallOption) error {
			md, _ := metadata.FromOutgoingContext(ctx)
			sent = trace.SpanContextFromContext(Propagator().Extract(context.Background(), metadataCarrier(md)))
			return fail
		}
	}
	call := func(ctx context.Context, fail error) error {
		sent = trace.SpanContext{}
		return UnaryClientInterceptor(ctx, "/etcdserverpb.KV/Txn", nil, nil, cc, invoke(fail))
	}

	if err := call(context.Background(), nil); err != nil || sent.IsValid() {
		t.Fatalf("outside a trace: err %v, sent %v; want nil and no context", err, sent)
	}

	tp, rec := recordingProvider(t)
	ctx, parent := tp.Tracer("test").Start(context.Background(), "parent")
	// Metadata already in the context is kept, not shared.
	ctx = metadata.AppendToOutgoingContext(ctx, "k", "v")
	if err := call(ctx, status.Error(grpccodes.Unavailable, "no leader")); status.Code(err) != grpccodes.Unavailable {
		t.Fatalf("err = %v, want the invoker's", err)
	}
	parent.End()
	spans := rec.Ended()
	if len(spans) != 2 || spans[0].Name() != "etcdserverpb.KV/Txn" || spans[0].SpanKind() != trace.SpanKindClient {
		t.Fatalf("ended spans = %v, want the client span etcdserverpb.KV/Txn, then the parent", spans)
	}
	if spans[0].Status().Code != codes.Error || spans[0].Status().Description != "no leader" {
		t.Errorf("status = %+v, want an error with the gRPC message", spans[0].Status())
	}
	if sent.SpanID() != spans[0].SpanContext().SpanID() {
		t.Errorf("metadata carries %v, want the client span %v", sent, spans[0].SpanContext())
	}
	if md, _ := metadata.FromOutgoingContext(ctx); len(md.Get("traceparent")) != 0 || md.Get("k")[0] != "v" {
		t.Errorf("caller's metadata changed: %v", md)
	}
}
