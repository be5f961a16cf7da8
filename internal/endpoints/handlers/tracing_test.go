package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/server/tracing"
)

func TestTraced(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(tracing.Sampler(tracing.MaxSamplingRatePerMillion)), sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	var inner trace.SpanContext
	h := Traced("Create", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner = trace.SpanContextFromContext(r.Context())
	}))

	// Outside a trace the handler runs in the request's own context.
	req := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/ns/configmaps", nil)
	h.ServeHTTP(httptest.NewRecorder(), req)
	if inner.IsValid() || len(rec.Ended()) != 0 {
		t.Fatalf("untraced request: handler in span %v, %d spans ended", inner, len(rec.Ended()))
	}

	ctx, parent := tp.Tracer("test").Start(request.WithAuditID(context.Background(), "a-1"), "server")
	req = req.WithContext(ctx)
	req.Header.Set("User-Agent", "kubectl/v1.37")
	req.Header.Set("Accept", "application/json")
	h.ServeHTTP(httptest.NewRecorder(), req)
	parent.End()
	spans := rec.Ended()
	if len(spans) != 2 || spans[0].Name() != "Create" {
		t.Fatalf("ended spans = %v, want Create, then the parent", spans)
	}
	s := spans[0]
	if s.Parent().SpanID() != parent.SpanContext().SpanID() || inner.SpanID() != s.SpanContext().SpanID() {
		t.Errorf("Create: parent %v, handler in %v; want the parent %v and Create %v", s.Parent().SpanID(), inner.SpanID(), parent.SpanContext().SpanID(), s.SpanContext().SpanID())
	}
	want := map[attribute.Key]string{"audit-id": "a-1", "client": "kubectl/v1.37", "accept": "application/json", "protocol": "HTTP/1.1"}
	for _, kv := range s.Attributes() {
		if w, ok := want[kv.Key]; ok {
			if kv.Value.AsString() != w {
				t.Errorf("%s = %q, want %q", kv.Key, kv.Value.AsString(), w)
			}
			delete(want, kv.Key)
		}
	}
	if len(want) > 0 {
		t.Errorf("attributes missing: %v", want)
	}
}
