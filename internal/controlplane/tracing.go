package controlplane

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

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
