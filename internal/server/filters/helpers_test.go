package filters

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// withInfo puts a RequestInfo in front of h, as the chain does.
func withInfo(h http.Handler) http.Handler {
	return WithRequestInfo(h, request.NewRequestInfoFactory())
}

// ok answers 200 "ok".
var ok = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) })

func do(h http.Handler, method, url string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, url, nil))
	return rec
}

// decodeStatus reads a Status body, failing the test when it is not one.
func decodeStatus(t *testing.T, rec *httptest.ResponseRecorder) metav1.Status {
	t.Helper()
	var s metav1.Status
	if err := json.Unmarshal(rec.Body.Bytes(), &s); err != nil {
		t.Fatalf("body %q is not a Status: %v", rec.Body.String(), err)
	}
	if s.Kind != "Status" || s.APIVersion != "v1" {
		t.Errorf("Status kind/apiVersion = %q/%q, want Status/v1", s.Kind, s.APIVersion)
	}
	if int(s.Code) != rec.Code {
		t.Errorf("Status code %d differs from HTTP status %d", s.Code, rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	return s
}
