package tracing

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
)

// ServiceName is the service.name of kube-apiserver's spans.
const ServiceName = "apiserver"

// ProviderOptions are what NewProvider adds to the file's configuration.
type ProviderOptions struct {
	// Hostname is the host.name resource attribute and what the
	// service.instance.id (ServerID) is derived from.
	Hostname string
	// BatchOptions tune the batch span processor (tests shorten its
	// timeout); none are upstream's defaults.
	BatchOptions []sdktrace.BatchSpanProcessorOption
}

// NewProvider returns a tracer provider that samples as upstream does —
// a request whose caller sampled it is traced, others at
// SamplingRatePerMillion — and batches spans to c.Endpoint over OTLP gRPC
// without TLS. It does not wait for the collector: spans that cannot be
// sent are dropped. The caller shuts the provider down, which flushes it.
// The OTEL_* environment variables of the exporter (such as
// OTEL_EXPORTER_OTLP_HEADERS) and OTEL_RESOURCE_ATTRIBUTES apply, as
// upstream's documentation says.
func NewProvider(ctx context.Context, c *Config, o ProviderOptions) (*sdktrace.TracerProvider, error) {
	exporter, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpoint(c.Endpoint), otlptracegrpc.WithInsecure())
	if err != nil {
		return nil, err
	}
	res, err := resource.New(ctx, resource.WithAttributes(
		semconv.ServiceName(ServiceName),
		semconv.ServiceInstanceID(ServerID(o.Hostname)),
		semconv.HostName(o.Hostname),
	))
	if err != nil {
		return nil, err
	}
	return sdktrace.NewTracerProvider(
		sdktrace.WithSampler(Sampler(c.SamplingRatePerMillion)),
		sdktrace.WithBatcher(exporter, o.BatchOptions...),
		sdktrace.WithResource(res),
	), nil
}

// Sampler is upstream's: a span with a parent follows the parent's
// decision; a root span is sampled at perMillion in a million.
func Sampler(perMillion int32) sdktrace.Sampler {
	root := sdktrace.NeverSample()
	if perMillion > 0 {
		root = sdktrace.TraceIDRatioBased(float64(perMillion) / MaxSamplingRatePerMillion)
	}
	return sdktrace.ParentBased(root)
}

// ServerID is the identity kube-apiserver gives itself on hostname
// ("apiserver-" and 26 base32 letters of a hash of the host name and
// "kube-apiserver"), which upstream reports as service.instance.id, so
// both servers on one host report the same.
func ServerID(hostname string) string {
	var data []byte
	for _, s := range []string{hostname, "kube-apiserver"} {
		data = binary.BigEndian.AppendUint16(data, uint16(len(s)))
		data = append(data, s...)
	}
	hash := sha256.Sum256(data)
	return "apiserver-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(hash[:16]))
}
