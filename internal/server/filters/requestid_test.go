package filters

import (
	"net/http"
	"testing"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

func TestWithRequestIDGeneratesUniqueIDs(t *testing.T) {
	var seenInContext string
	h := WithRequestID(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		seenInContext = request.AuditIDFrom(r.Context())
	}))
	ids := map[string]bool{}
	for range 3 {
		rec := do(h, http.MethodGet, "/x")
		id := rec.Header().Get(HeaderAuditID)
		if len(id) != 36 {
			t.Fatalf("Audit-Id = %q, want a UUID", id)
		}
		if seenInContext != id {
			t.Errorf("context audit ID %q, header %q", seenInContext, id)
		}
		ids[id] = true
	}
	if len(ids) != 3 {
		t.Errorf("got %d distinct IDs for 3 requests", len(ids))
	}
}

func TestWithRequestInfoStoresNamespace(t *testing.T) {
	var ns, resource string
	h := withInfo(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		ns = request.NamespaceValue(r.Context())
		if info, ok := request.RequestInfoFrom(r.Context()); ok {
			resource = info.Resource
		}
	}))
	do(h, http.MethodGet, "/api/v1/namespaces/team-a/pods")
	if ns != "team-a" || resource != "pods" {
		t.Errorf("namespace %q resource %q, want team-a pods", ns, resource)
	}
	rec := do(h, http.MethodGet, "/api/v1/watch")
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("malformed path: code %d, want 500", rec.Code)
	}
}
