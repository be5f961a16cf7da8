// Package tracing is kapi's OpenTelemetry tracing, as kube-apiserver's
// APIServerTracing: the --tracing-config-file (a TracingConfiguration of
// apiserver.config.k8s.io, versions v1, v1beta1 and v1alpha1), the tracer
// provider that batches spans and exports them over OTLP gRPC, and the
// helpers the rest of kapi starts spans and propagates W3C trace context
// with.
//
// Only the filter chain holds the provider (filters.WithTracing starts
// each request's server span from it). Everything below — the filters
// after authentication, the verb handlers, admission, the etcd client
// (UnaryClientInterceptor) and the webhook clients (Transport) — starts
// its spans from the span in the request's context (Start), so a part
// needs no provider of its own and costs at most one context lookup when
// tracing is off or the request is not sampled. The watch cache and the
// stores have no spans of their own.
package tracing
