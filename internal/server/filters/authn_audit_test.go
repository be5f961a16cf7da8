package filters

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/audit"
	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// refuseAll is an authenticator that never knows anyone.
var refuseAll = authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) {
	return nil, false, nil
})

// TestFailedAuthenticationAudit: a request refused with 401 is audited as
// kube-apiserver audits it: one ResponseStarted event with no user, the
// request's metadata, and a responseStatus with code 401 whose message
// names the credentials tried; the policy is evaluated with no user.
func TestFailedAuthenticationAudit(t *testing.T) {
	metadata := &auditv1.Policy{Rules: []auditv1.PolicyRule{{Level: auditv1.LevelMetadata}}}
	tests := []struct {
		name       string
		policy     *auditv1.Policy
		setup      func(r *http.Request)
		wantStages []auditv1.Stage
		wantMsg    string
	}{
		{name: "bearer token", policy: metadata,
			setup:      func(r *http.Request) { r.Header.Set("Authorization", "Bearer bad") },
			wantStages: []auditv1.Stage{auditv1.StageResponseStarted},
			wantMsg:    "Authentication failed, attempted: bearer"},
		{name: "basic and x509", policy: metadata,
			setup: func(r *http.Request) {
				r.SetBasicAuth("u", "p")
				r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{{}}}
			},
			wantStages: []auditv1.Stage{auditv1.StageResponseStarted},
			wantMsg:    "Authentication failed, attempted: basic, x509"},
		{name: "access_token query", policy: metadata,
			setup:      func(r *http.Request) { r.URL.RawQuery = "access_token=x" },
			wantStages: []auditv1.Stage{auditv1.StageResponseStarted},
			wantMsg:    "Authentication failed, attempted: access_token"},
		{name: "no credentials", policy: metadata, setup: func(*http.Request) {},
			wantStages: []auditv1.Stage{auditv1.StageResponseStarted},
			wantMsg:    "Authentication failed, no credentials provided"},
		{name: "policy omits ResponseStarted",
			policy: &auditv1.Policy{OmitStages: []auditv1.Stage{auditv1.StageResponseStarted}, Rules: metadata.Rules},
			setup:  func(*http.Request) {}},
		{name: "rule for a user does not match the unknown one",
			policy: &auditv1.Policy{Rules: []auditv1.PolicyRule{{Level: auditv1.LevelMetadata, Users: []string{"alice"}}}},
			setup:  func(*http.Request) {}},
		{name: "rule for a group does not match the unknown one",
			policy: &auditv1.Policy{Rules: []auditv1.PolicyRule{{Level: auditv1.LevelMetadata, UserGroups: []string{"system:unauthenticated"}}}},
			setup:  func(*http.Request) {}},
		{name: "level None", policy: &auditv1.Policy{Rules: []auditv1.PolicyRule{{Level: auditv1.LevelNone}}},
			setup: func(*http.Request) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &fakeBackend{}
			checker := audit.NewChecker(tt.policy)
			reached := false
			next := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true })
			failed := withFailedAuthenticationAudit(Unauthorized(), checker, b, (&stepClock{t: time.Unix(100, 0)}).now)
			authn := WithAuthentication(WithAudit(next, checker, b, nil), refuseAll, failed, nil)
			h := withInfo(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				authn.ServeHTTP(w, r.WithContext(request.WithAuditID(r.Context(), "audit-1")))
			}))
			r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/ns/pods", nil)
			r.Header.Set("User-Agent", "kubectl/v1.37")
			tt.setup(r)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code != http.StatusUnauthorized || reached {
				t.Fatalf("code %d, handler reached %v; want 401", rec.Code, reached)
			}
			if s := decodeStatus(t, rec); s.Reason != metav1.StatusReasonUnauthorized || s.Message != "Unauthorized" {
				t.Errorf("response Status = %+v", s)
			}
			events := b.events(t)
			var stages []auditv1.Stage
			for _, e := range events {
				stages = append(stages, e.Stage)
			}
			if diff := cmp.Diff(tt.wantStages, stages); diff != "" {
				t.Fatalf("stages (-want +got):\n%s", diff)
			}
			if len(events) == 0 {
				return
			}
			e := events[0]
			if e.Level != auditv1.LevelMetadata || e.AuditID != "audit-1" || e.Verb != "list" ||
				e.RequestURI != r.URL.RequestURI() || e.UserAgent != "kubectl/v1.37" {
				t.Errorf("event %+v", e)
			}
			if diff := cmp.Diff(authnv1.UserInfo{}, e.User); diff != "" {
				t.Errorf("user (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"192.0.2.1"}, e.SourceIPs); diff != "" {
				t.Errorf("sourceIPs (-want +got):\n%s", diff)
			}
			wantRef := &auditv1.ObjectReference{Resource: "pods", Namespace: "ns", APIVersion: "v1"}
			if diff := cmp.Diff(wantRef, e.ObjectRef); diff != "" {
				t.Errorf("objectRef (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(&metav1.Status{Code: 401, Message: tt.wantMsg}, e.ResponseStatus); diff != "" {
				t.Errorf("responseStatus (-want +got):\n%s", diff)
			}
			if !e.StageTimestamp.After(e.RequestReceivedTimestamp.Time) {
				t.Errorf("stage at %v, not after the receive time %v", e.StageTimestamp, e.RequestReceivedTimestamp)
			}
		})
	}
}

// TestUnauthorizedClosesHTTP2: an unauthenticated HTTP/2 client must
// reconnect for its next request, as with upstream.
func TestUnauthorizedClosesHTTP2(t *testing.T) {
	for _, major := range []int{1, 2} {
		r := httptest.NewRequest(http.MethodGet, "/api", nil)
		r.ProtoMajor = major
		rec := httptest.NewRecorder()
		WithAuthentication(ok, refuseAll, nil, nil).ServeHTTP(rec, r)
		if got, want := rec.Header().Get("Connection") == "close", major == 2; got != want {
			t.Errorf("HTTP/%d: Connection: close = %v, want %v", major, got, want)
		}
	}
}
