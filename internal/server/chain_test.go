package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/metrics"
	"github.com/kapi-dev/kapi/internal/endpoints/warning"
)

// tokenAuthenticator knows "Bearer <name>" for any name, "Bearer panic"
// panics, and has no opinion without a bearer token.
var tokenAuthenticator = authenticator.RequestFunc(func(r *http.Request) (*authenticator.Response, bool, error) {
	name, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return nil, false, nil
	}
	if name == "panic" {
		panic("authenticator exploded")
	}
	return &authenticator.Response{User: &user.DefaultInfo{Name: name, Groups: []string{user.AllAuthenticated}}}, true, nil
})

// denyBob denies the user bob and the path /forbidden, and allows the rest.
var denyBob = authorizer.Func(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if (a.User != nil && a.User.GetName() == "bob") || a.Path == "/forbidden" {
		return authorizer.DecisionDeny, "", nil
	}
	return authorizer.DecisionAllow, "", nil
})

// TestDefaultBuildHandlerChainOrder pins the filter order: each request
// would fail in two filters, and the outer one must answer.
func TestDefaultBuildHandlerChainOrder(t *testing.T) {
	tests := []struct {
		name string
		// outer, inner name the filters that compete.
		outer, inner string
		url          string
		token        string
		drain        bool // the wait group is draining
		saturate     bool // the single read-only slot is taken
		wantCode     int
		wantHeader   [2]string // a header the outer filter leaves
	}{
		{name: "request id wraps request info", outer: "request id", inner: "request info",
			url: "/api/v1/watch", token: "alice", wantCode: 500, wantHeader: [2]string{"Audit-Id", "*"}},
		{name: "panic recovery wraps authentication", outer: "panic recovery", inner: "authentication",
			url: "/api/v1/pods", token: "panic", wantCode: 500, wantHeader: [2]string{"Audit-Id", "*"}},
		{name: "cache control wraps wait group", outer: "cache control", inner: "wait group",
			url: "/api/v1/pods", token: "alice", drain: true, wantCode: 503, wantHeader: [2]string{"Cache-Control", "no-cache, private"}},
		{name: "wait group wraps timeout", outer: "wait group", inner: "timeout",
			url: "/api/v1/pods?timeout=bad", token: "alice", drain: true, wantCode: 503},
		{name: "timeout wraps authentication", outer: "timeout", inner: "authentication",
			url: "/api/v1/pods?timeout=bad", wantCode: 400},
		{name: "authentication wraps max in flight", outer: "authentication", inner: "max in flight",
			url: "/api/v1/pods", saturate: true, wantCode: 401},
		{name: "max in flight wraps authorization", outer: "max in flight", inner: "authorization",
			url: "/api/v1/pods", token: "bob", saturate: true, wantCode: 429},
		{name: "authorization wraps the handler", outer: "authorization", inner: "handler",
			url: "/api/v1/pods", token: "bob", wantCode: 403},
		// The timeout leaves the handler time to add its warning before
		// the 504, even on a loaded machine.
		{name: "warning recorder wraps timeout", outer: "warning recorder", inner: "timeout",
			url: "/slow?timeout=500ms", token: "alice", wantCode: 504, wantHeader: [2]string{"Warning", `299 - "slow"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewConfig()
			c.Authentication = tokenAuthenticator
			c.Authorization = denyBob
			c.MaxRequestsInFlight = 1
			cfg := c.complete()
			hold, held := make(chan struct{}), make(chan struct{})
			api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/hold":
					close(held)
					<-hold
				case "/slow":
					warning.AddWarning(r.Context(), "", "slow")
					<-r.Context().Done()
					<-hold
				}
			})
			h := DefaultBuildHandlerChain(api, cfg)
			if tt.drain {
				cfg.NonLongRunningRequestWaitGroup.Close()
			}
			holderDone := make(chan struct{})
			if tt.saturate {
				go func() {
					defer close(holderDone)
					h.ServeHTTP(httptest.NewRecorder(), authed(httptest.NewRequest(http.MethodGet, "/hold", nil), "alice"))
				}()
				<-held
			} else {
				close(holderDone)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, authed(httptest.NewRequest(http.MethodGet, tt.url, nil), tt.token))
			close(hold)
			<-holderDone
			if rec.Code != tt.wantCode {
				t.Fatalf("%s must answer before %s: code = %d, want %d; body %s", tt.outer, tt.inner, rec.Code, tt.wantCode, rec.Body)
			}
			if k, v := tt.wantHeader[0], tt.wantHeader[1]; k != "" {
				if got := rec.Header().Get(k); got == "" || (v != "*" && got != v) {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func authed(r *http.Request, token string) *http.Request {
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return r
}

// TestChainWithoutAuth checks that a nil authenticator and authorizer
// disable those filters, as upstream.
func TestChainWithoutAuth(t *testing.T) {
	c := NewConfig()
	c.RequestTimeout = time.Minute
	h := DefaultBuildHandlerChain(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}), c.complete())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil))
	if rec.Code != http.StatusNoContent {
		t.Errorf("code = %d, want 204", rec.Code)
	}
}

// TestChainCountsAborts: a response aborted below the chain counts in
// apiserver_request_aborts_total with the labels of the request, which
// the panic recovery resolves again.
func TestChainCountsAborts(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := NewConfig()
	c.RequestTimeout = time.Minute
	var err error
	if c.Metrics, err = metrics.New(reg); err != nil {
		t.Fatal(err)
	}
	h := DefaultBuildHandlerChain(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic(http.ErrAbortHandler)
	}), c.complete())
	func() {
		defer func() {
			if v := recover(); v != http.ErrAbortHandler {
				t.Errorf("recovered %v, want http.ErrAbortHandler passed on", v)
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/apis/apps/v1/namespaces/ns/deployments/d", nil))
	}()
	want := `
# HELP apiserver_request_aborts_total [ALPHA] Number of requests which apiserver aborted possibly due to a timeout, for each group, version, verb, resource, subresource and scope
# TYPE apiserver_request_aborts_total counter
apiserver_request_aborts_total{group="apps",resource="deployments",scope="resource",subresource="",verb="GET",version="v1"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "apiserver_request_aborts_total"); err != nil {
		t.Error(err)
	}
}
