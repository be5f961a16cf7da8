package handlers

import (
	"net/http"

	"go.opentelemetry.io/otel/attribute"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/server/tracing"
)

// SpanNames are the names upstream gives the spans of its verb handlers;
// a watch, which lasts as long as the client wants, and connect get
// none.
var SpanNames = map[string]string{
	"get":              "Get",
	"list":             "List",
	"create":           "Create",
	"update":           "Update",
	"patch":            "Patch",
	"delete":           "Delete",
	"deletecollection": "Delete",
}

// Traced runs h inside the span name, a child of the request's span with
// upstream's attributes (audit-id, client, accept, protocol), when the
// request is traced (--tracing-config-file, and sampled). Otherwise it
// costs one context lookup.
func Traced(name string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ctx, span := tracing.Start(req.Context(), name)
		if !span.IsRecording() {
			h.ServeHTTP(w, req)
			return
		}
		defer span.End()
		span.SetAttributes(
			attribute.String("audit-id", request.AuditIDFrom(ctx)),
			attribute.String("client", req.UserAgent()),
			attribute.String("accept", req.Header.Get("Accept")),
			attribute.String("protocol", req.Proto),
		)
		h.ServeHTTP(w, req.WithContext(ctx))
	})
}
