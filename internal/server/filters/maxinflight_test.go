package filters

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

func TestWithMaxInFlightLimit(t *testing.T) {
	bob := &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated}}
	admin := &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup}}
	tests := []struct {
		name       string
		held       string // request occupying the only slot of its kind
		method     string
		url        string
		user       user.Info
		wantCode   int
		readOnly   int
		mutating   int
		wantStatus bool
	}{
		{name: "read-only full", held: "GET /api/v1/pods", method: "GET", url: "/api/v1/pods", user: bob, wantCode: 429, readOnly: 1, mutating: 1, wantStatus: true},
		{name: "mutating has its own budget", held: "GET /api/v1/pods", method: "POST", url: "/api/v1/namespaces/ns/pods", user: bob, wantCode: 200, readOnly: 1, mutating: 1},
		{name: "mutating full", held: "DELETE /api/v1/namespaces/ns/pods/a", method: "PUT", url: "/api/v1/namespaces/ns/pods/b", user: bob, wantCode: 429, readOnly: 1, mutating: 1, wantStatus: true},
		{name: "system:masters exempt", held: "GET /api/v1/pods", method: "GET", url: "/api/v1/pods", user: admin, wantCode: 200, readOnly: 1, mutating: 1},
		{name: "watch exempt", held: "GET /api/v1/pods", method: "GET", url: "/api/v1/pods?watch=1", user: bob, wantCode: 200, readOnly: 1, mutating: 1},
		{name: "unlimited read-only", held: "GET /api/v1/pods", method: "GET", url: "/api/v1/pods", user: bob, wantCode: 200, readOnly: 0, mutating: 1},
		{name: "non-resource GET is read-only", held: "GET /healthz", method: "GET", url: "/version", user: bob, wantCode: 429, readOnly: 1, mutating: 1, wantStatus: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entered, release := make(chan struct{}), make(chan struct{})
			inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-Hold") != "" {
					close(entered)
					<-release
				}
			})
			// The users are put in the context directly, standing in for
			// authentication.
			h := withInfo(WithMaxInFlightLimit(inner, tt.readOnly, tt.mutating, request.DefaultLongRunningRequestCheck()))
			heldDone := make(chan struct{})
			go func() {
				defer close(heldDone)
				method, url, _ := strings.Cut(tt.held, " ")
				req := httptest.NewRequest(method, url, nil)
				req.Header.Set("X-Hold", "1")
				req = req.WithContext(request.WithUser(req.Context(), bob))
				h.ServeHTTP(httptest.NewRecorder(), req)
			}()
			<-entered
			req := httptest.NewRequest(tt.method, tt.url, nil)
			req = req.WithContext(request.WithUser(req.Context(), tt.user))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			close(release)
			<-heldDone
			if rec.Code != tt.wantCode {
				t.Fatalf("code = %d, want %d", rec.Code, tt.wantCode)
			}
			if tt.wantStatus {
				s := decodeStatus(t, rec)
				if s.Reason != "TooManyRequests" {
					t.Errorf("reason = %q, want TooManyRequests", s.Reason)
				}
				if got := rec.Header().Get("Retry-After"); got != "1" {
					t.Errorf("Retry-After = %q, want 1", got)
				}
			}
		})
	}
}
