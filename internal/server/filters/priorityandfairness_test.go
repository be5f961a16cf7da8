package filters

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/server/flowcontrol"
)

// asUser sets the authenticated user, as authentication does.
func asUser(h http.Handler, u user.Info) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), u)))
	})
}

// TestWithPriorityAndFairness: one seat (the catch-all level, which
// rejects): a request holding it makes the next one a 429 with upstream's
// body, Retry-After and the flow control headers; a watch gives its seat
// back once it starts sending; exec bypasses APF; system:masters is
// exempt.
func TestWithPriorityAndFairness(t *testing.T) {
	d := flowcontrol.New(flowcontrol.Options{ServerConcurrencyLimit: 1})
	release := make(chan struct{})
	entered := make(chan struct{}, 10)
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.Contains(r.URL.RawQuery, "block"):
			entered <- struct{}{}
			<-release
		case strings.Contains(r.URL.RawQuery, "watch=true"):
			w.WriteHeader(http.StatusOK)
			http.NewResponseController(w).Flush()
			entered <- struct{}{}
			<-release
		}
	})
	reg, m := newTestMetrics(t)
	h := func(u user.Info) http.Handler {
		lr := request.DefaultLongRunningRequestCheck()
		return withInfo(WithRequestMetrics(asUser(WithPriorityAndFairness(next, d, lr, 0), u), m, lr))
	}
	alice := h(&user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}})
	admin := h(&user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}})

	rec := do(alice, http.MethodGet, "/api/v1/namespaces/a/configmaps/x")
	if _, ok := rec.Header()[http.CanonicalHeaderKey(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID)]; rec.Code != http.StatusOK || !ok {
		t.Fatalf("served request: %d %v", rec.Code, rec.Header())
	}

	// A watch takes the seat only until it starts sending.
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		do(alice, http.MethodGet, "/api/v1/namespaces/a/configmaps?watch=true")
	}()
	<-entered
	if rec := do(alice, http.MethodGet, "/api/v1/namespaces/a/configmaps/x"); rec.Code != http.StatusOK {
		t.Fatalf("request beside an open watch: %d", rec.Code)
	}

	blockedDone := make(chan struct{})
	go func() {
		defer close(blockedDone)
		do(alice, http.MethodGet, "/api/v1/namespaces/a/configmaps/x?block=1")
	}()
	<-entered
	rec = do(alice, http.MethodGet, "/api/v1/namespaces/a/configmaps/y")
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" ||
		strings.TrimSpace(rec.Body.String()) != "Too many requests, please try again later." {
		t.Fatalf("over the limit: %d Retry-After %q body %q", rec.Code, rec.Header().Get("Retry-After"), rec.Body.String())
	}
	if _, ok := rec.Header()[http.CanonicalHeaderKey(flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID)]; !ok {
		t.Errorf("429 without %s", flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID)
	}
	rejected := map[string]string{"verb": "GET", "resource": "configmaps", "scope": "resource", "code": "429"}
	if got, all := sample(t, reg, "apiserver_request_terminations_total", rejected), sample(t, reg, "apiserver_request_terminations_total", nil); got != 1 || all != 1 {
		t.Errorf("apiserver_request_terminations_total%v = %v (of %v), want the one rejection", rejected, got, all)
	}
	if rec := do(admin, http.MethodGet, "/api/v1/namespaces/a/configmaps/y"); rec.Code != http.StatusOK {
		t.Errorf("system:masters over the limit: %d", rec.Code)
	}
	// exec is long-running: not subject to APF.
	if rec := do(alice, http.MethodPost, "/api/v1/namespaces/a/pods/p/exec"); rec.Code != http.StatusOK {
		t.Errorf("exec over the limit: %d", rec.Code)
	}
	close(release)
	<-blockedDone
	<-watchDone
}

func TestPriorityAndFairnessNilDispatcher(t *testing.T) {
	if h := WithPriorityAndFairness(ok, nil, nil, 0); h == nil {
		t.Fatal("nil handler")
	}
	rec := httptest.NewRecorder()
	WithPriorityAndFairness(ok, nil, nil, 0).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("%d", rec.Code)
	}
}
