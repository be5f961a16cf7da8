package filters

import (
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/server/tracing"
)

// WithTracing starts each request's server span with tp, as upstream's
// otelhttp filter does, right inside authentication so that the user is
// known: the W3C trace context of a request from system:masters or
// system:monitoring is its parent (and its baggage is kept), so such a
// caller's sampled request is traced whatever the sampling rate; anyone
// else's starts a new trace (sampled at the configured rate) linked to
// the caller's context, whose baggage is dropped, so that an untrusted
// client can neither make the server trace nor pass anything on to the
// webhooks and etcd. The span is
// named "<METHOD> <path with {:namespace} and {:name}>" for a resource
// request and after the method otherwise, starts when the request arrived
// (its Observation's clock) and carries the HTTP semantic-convention
// attributes, the audit id and the status. A nil tp installs nothing.
func WithTracing(next http.Handler, tp trace.TracerProvider) http.Handler {
	if tp == nil {
		return next
	}
	tracer := tp.Tracer(tracing.ScopeName)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		remote := tracing.Propagator().Extract(ctx, propagation.HeaderCarrier(r.Header))
		opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)}
		if tracingPrivileged(r) {
			ctx = remote
		} else if sc := trace.SpanContextFromContext(remote); sc.IsValid() {
			// Neither the caller's trace nor its baggage goes further.
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc}))
		}
		o := request.ObservationFrom(ctx)
		if o != nil && !o.Start.IsZero() {
			opts = append(opts, trace.WithTimestamp(o.Start))
		}
		// Named once it is known to be recorded: most requests are not.
		ctx, span := tracer.Start(ctx, r.Method, opts...)
		defer span.End()
		r = r.WithContext(ctx)
		if !span.IsRecording() {
			next.ServeHTTP(w, r)
			return
		}
		if o != nil {
			o.Traced = true
		}
		span.SetName(serverSpanName(r))
		span.SetAttributes(serverAttributes(r)...)
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if code := sw.Status(); code != 0 {
			span.SetAttributes(semconv.HTTPResponseStatusCode(code))
			if code >= http.StatusInternalServerError {
				span.SetStatus(codes.Error, "")
			}
		}
		if sw.written > 0 {
			span.SetAttributes(semconv.HTTPResponseBodySize(int(sw.written)))
		}
	})
}

// tracingPrivileged is whether the request's user may have its own trace
// context followed.
func tracingPrivileged(r *http.Request) bool {
	u, ok := request.UserFrom(r.Context())
	if !ok {
		return false
	}
	groups := u.GetGroups()
	return slices.Contains(groups, user.SystemPrivilegedGroup) || slices.Contains(groups, user.MonitoringGroup)
}

// serverSpanName is upstream's: the method, and for a resource request the
// path with the namespace and name left out.
func serverSpanName(r *http.Request) string {
	info, ok := request.RequestInfoFrom(r.Context())
	if !ok || !info.IsResourceRequest {
		return r.Method
	}
	var b strings.Builder
	b.WriteString(r.Method + " /" + info.APIPrefix)
	if info.APIGroup != "" {
		b.WriteString("/" + info.APIGroup)
	}
	b.WriteString("/" + info.APIVersion)
	if info.Namespace != "" {
		b.WriteString("/namespaces/{:namespace}")
	}
	b.WriteString("/" + info.Resource)
	if info.Name != "" {
		b.WriteString("/{:name}")
	}
	if info.Subresource != "" {
		b.WriteString("/" + info.Subresource)
	}
	return b.String()
}

// serverAttributes are the HTTP server semantic-convention attributes
// otelhttp records, upstream's http.target, and the audit id, which
// connects the trace to the audit log.
func serverAttributes(r *http.Request) []attribute.KeyValue {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	attrs := []attribute.KeyValue{
		semconv.HTTPRequestMethodKey.String(r.Method),
		semconv.URLScheme(scheme),
		semconv.URLPath(r.URL.Path),
		attribute.String("http.target", r.URL.RequestURI()),
		attribute.String("audit-id", request.AuditIDFrom(r.Context())),
	}
	if host, port, err := net.SplitHostPort(r.Host); err == nil {
		attrs = append(attrs, semconv.ServerAddress(host))
		if p, err := strconv.Atoi(port); err == nil {
			attrs = append(attrs, semconv.ServerPort(p))
		}
	} else if r.Host != "" {
		attrs = append(attrs, semconv.ServerAddress(r.Host))
	}
	if host, port, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		attrs = append(attrs, semconv.NetworkPeerAddress(host), semconv.ClientAddress(host))
		if p, err := strconv.Atoi(port); err == nil {
			attrs = append(attrs, semconv.NetworkPeerPort(p))
		}
	}
	if ua := r.UserAgent(); ua != "" {
		attrs = append(attrs, semconv.UserAgentOriginal(ua))
	}
	if r.ProtoMajor > 0 {
		v := strconv.Itoa(r.ProtoMajor)
		if r.ProtoMajor == 1 {
			v += "." + strconv.Itoa(r.ProtoMinor)
		}
		attrs = append(attrs, semconv.NetworkProtocolVersion(v))
	}
	return attrs
}
