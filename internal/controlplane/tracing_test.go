package controlplane

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"

	"github.com/kapi-dev/kapi/internal/server/tracing"
)

// collector is an OTLP gRPC trace collector on a free loopback port that
// keeps every span it is sent.
type collector struct {
	collectortrace.UnimplementedTraceServiceServer
	addr string

	mu      sync.Mutex
	spans   []collected
	changed chan struct{} // closed, and replaced, on each export
}

// collected is a span and the service.name of its resource.
type collected struct {
	*tracepb.Span
	service string
}

func startCollector(t *testing.T) *collector {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{addr: l.Addr().String(), changed: make(chan struct{})}
	srv := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(srv, c)
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(l) }()
	// Registered before the server's cleanup, so run after it: the
	// spans flushed at shutdown still find the collector.
	t.Cleanup(func() { srv.Stop(); <-served })
	return c
}

func (c *collector) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		var service string
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				service = kv.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				c.spans = append(c.spans, collected{s, service})
			}
		}
	}
	close(c.changed)
	c.changed = make(chan struct{})
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

func inTrace(all []collected, traceID []byte) []collected {
	var spans []collected
	for _, s := range all {
		if bytes.Equal(s.TraceId, traceID) {
			spans = append(spans, s)
		}
	}
	return spans
}

// spanNames names spans, the last 30 of them when there are more.
func spanNames(spans []collected) string {
	var names []string
	for _, s := range spans[max(0, len(spans)-30):] {
		names = append(names, s.Name)
	}
	return fmt.Sprintf("%d spans, the last %q", len(spans), names)
}

// TestTracerProviderFlushesOnShutdown: the provider holds a span up to
// 5s before sending it; shutting it down, as Run does on exit, sends it
// at once. Without --tracing-config-file there is no provider.
func TestTracerProviderFlushesOnShutdown(t *testing.T) {
	logger := slog.New(slog.DiscardHandler)
	tp, stop, err := newTracerProvider(context.Background(), &Config{}, logger)
	if err != nil || tp != nil {
		t.Fatalf("without tracing: provider %v, err %v; want none", tp, err)
	}
	stop()

	col := startCollector(t)
	c := &Config{Tracing: &tracing.Config{Endpoint: col.addr, SamplingRatePerMillion: tracing.MaxSamplingRatePerMillion}}
	tp, stop, err = newTracerProvider(context.Background(), c, logger)
	if err != nil {
		t.Fatal(err)
	}
	_, span := tp.Tracer("test").Start(context.Background(), "flushed")
	span.End()
	stop()
	col.mu.Lock()
	defer col.mu.Unlock()
	traceID := span.SpanContext().TraceID()
	if spans := inTrace(col.spans, traceID[:]); len(spans) != 1 || spans[0].Name != "flushed" || spans[0].service != tracing.ServiceName {
		t.Errorf("after shutdown the collector has %s of the trace, want the span flushed of service %q", spanNames(spans), tracing.ServiceName)
	}
}
