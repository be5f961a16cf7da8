package controlplane

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"

	"github.com/kapi-dev/kapi/internal/server/tracing"
)

// tracingShutdownTimeout bounds the flush of the spans still held at
// exit, so that an unreachable collector cannot hold the process.
const tracingShutdownTimeout = 5 * time.Second

// newTracerProvider builds the tracer provider of --tracing-config-file,
// and the function that shuts it down, sending the spans it still holds.
// Without the flag it returns nil and a no-op: nothing is traced.
func newTracerProvider(ctx context.Context, c *Config, logger *slog.Logger) (trace.TracerProvider, func(), error) {
	if c.Tracing == nil {
		return nil, func() {}, nil
	}
	hostname, err := os.Hostname()
	if err != nil {
		return nil, nil, fmt.Errorf("--tracing-config-file: host name: %w", err)
	}
	opts := tracing.ProviderOptions{Hostname: hostname}
	if c.tracingBatchTimeout > 0 {
		opts.BatchOptions = append(opts.BatchOptions, sdktrace.WithBatchTimeout(c.tracingBatchTimeout))
	}
	tp, err := tracing.NewProvider(ctx, c.Tracing, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("--tracing-config-file: %w", err)
	}
	logger.Info("tracing", "endpoint", c.Tracing.Endpoint, "samplingRatePerMillion", c.Tracing.SamplingRatePerMillion)
	return tp, func() {
		ctx, cancel := context.WithTimeout(context.Background(), tracingShutdownTimeout)
		defer cancel()
		if err := tp.Shutdown(ctx); err != nil {
			logger.Error("flushing traces", "endpoint", c.Tracing.Endpoint, "err", err)
		}
	}, nil
}

// etcdDialOptions trace the etcd client's calls when tracing is on.
func (c *Config) etcdDialOptions() []grpc.DialOption {
	if c.Tracing == nil {
		return nil
	}
	return []grpc.DialOption{grpc.WithChainUnaryInterceptor(tracing.UnaryClientInterceptor)}
}

// webhookTransport wraps the transports of the webhook clients (admission,
// conversion, authorization) so that they propagate the request's trace
// context, when tracing is on; nil otherwise.
func (c *Config) webhookTransport() func(http.RoundTripper) http.RoundTripper {
	if c.Tracing == nil {
		return nil
	}
	return tracing.Transport
}
