package filters

import (
	"net/http"

	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// HeaderAuditID is the header that carries a request's audit ID both ways.
const HeaderAuditID = "Audit-Id"

// WithRequestID gives every request an audit ID: the client's Audit-Id
// header when it sent one (so a proxying server keeps its caller's ID), a
// new UUID otherwise. The ID goes into the context and the response.
func WithRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(HeaderAuditID)
		if id == "" {
			id = string(uuid.NewUUID())
		}
		r = r.WithContext(request.WithAuditID(r.Context(), id))
		// An aggregated server behind us may set it as well; one value is
		// enough.
		if w.Header().Get(HeaderAuditID) == "" {
			w.Header().Set(HeaderAuditID, id)
		}
		next.ServeHTTP(w, r)
	})
}
