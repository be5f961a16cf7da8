package filters

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

func TestWithAuthorization(t *testing.T) {
	tests := []struct {
		name        string
		method, url string
		decision    authorizer.Decision
		reason      string
		err         error
		wantCode    int
		wantMessage string
		wantDetails string // group/kind/name
	}{
		{
			name: "allowed", method: "GET", url: "/api/v1/namespaces/ns/configmaps/foo",
			decision: authorizer.DecisionAllow, wantCode: 200,
		},
		{
			name: "allowed despite an error", method: "GET", url: "/api/v1/namespaces/ns/configmaps/foo",
			decision: authorizer.DecisionAllow, err: errors.New("partial"), wantCode: 200,
		},
		{
			name: "namespaced get", method: "GET", url: "/api/v1/namespaces/ns/configmaps/foo",
			decision: authorizer.DecisionDeny, wantCode: 403,
			wantMessage: `configmaps "foo" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "ns"`,
			wantDetails: "/configmaps/foo",
		},
		{
			name: "no opinion with reason", method: "GET", url: "/api/v1/namespaces/ns/configmaps/foo",
			decision: authorizer.DecisionNoOpinion, reason: "RBAC: role not found", wantCode: 403,
			wantMessage: `configmaps "foo" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "ns": RBAC: role not found`,
			wantDetails: "/configmaps/foo",
		},
		{
			name: "cluster-scoped list in a group", method: "GET", url: "/apis/apps/v1/deployments",
			decision: authorizer.DecisionDeny, wantCode: 403,
			wantMessage: `deployments.apps is forbidden: User "bob" cannot list resource "deployments" in API group "apps" at the cluster scope`,
			wantDetails: "apps/deployments/",
		},
		{
			name: "subresource", method: "PUT", url: "/apis/apps/v1/namespaces/ns/deployments/d/scale",
			decision: authorizer.DecisionDeny, wantCode: 403,
			wantMessage: `deployments.apps "d" is forbidden: User "bob" cannot update resource "deployments/scale" in API group "apps" in the namespace "ns"`,
			wantDetails: "apps/deployments/d",
		},
		{
			name: "non-resource", method: "GET", url: "/foo",
			decision: authorizer.DecisionDeny, wantCode: 403,
			wantMessage: `forbidden: User "bob" cannot get path "/foo"`,
			wantDetails: "//",
		},
		{
			name: "html is escaped", method: "GET", url: "/<b>",
			decision: authorizer.DecisionDeny, wantCode: 403,
			wantMessage: `forbidden: User "bob" cannot get path "/&lt;b&gt;"`,
			wantDetails: "//",
		},
		{
			name: "error without allow", method: "GET", url: "/api/v1/pods",
			decision: authorizer.DecisionNoOpinion, err: errors.New("webhook down"), wantCode: 500,
		},
	}
	bob := &user.DefaultInfo{Name: "bob"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen authorizer.Attributes
			authz := authorizer.Func(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
				seen = a
				return tt.decision, tt.reason, tt.err
			})
			h := withInfo(WithAuthorization(ok, authz, nil))
			req := httptest.NewRequest(tt.method, tt.url, nil)
			req = req.WithContext(request.WithUser(req.Context(), bob))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.wantCode {
				t.Fatalf("code = %d, want %d", rec.Code, tt.wantCode)
			}
			if seen.User != bob {
				t.Errorf("authorizer saw user %v", seen.User)
			}
			if tt.wantCode != 403 {
				return
			}
			s := decodeStatus(t, rec)
			if s.Message != tt.wantMessage {
				t.Errorf("message:\n got %s\nwant %s", s.Message, tt.wantMessage)
			}
			if s.Reason != "Forbidden" {
				t.Errorf("reason = %q", s.Reason)
			}
			got := s.Details.Group + "/" + s.Details.Kind + "/" + s.Details.Name
			if got != tt.wantDetails {
				t.Errorf("details = %q, want %q", got, tt.wantDetails)
			}
		})
	}
}

func TestAttributesFrom(t *testing.T) {
	req := httptest.NewRequest(http.MethodGet, "/apis/apps/v1/namespaces/ns/deployments/d/status", nil)
	u := &user.DefaultInfo{Name: "bob"}
	var got authorizer.Attributes
	withInfo(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		var err error
		if got, err = AttributesFrom(r.WithContext(request.WithUser(r.Context(), u))); err != nil {
			t.Fatal(err)
		}
	})).ServeHTTP(httptest.NewRecorder(), req)
	want := authorizer.Attributes{
		User: u, Verb: "get", Namespace: "ns", APIGroup: "apps", APIVersion: "v1",
		Resource: "deployments", Subresource: "status", Name: "d", ResourceRequest: true,
		Path: "/apis/apps/v1/namespaces/ns/deployments/d/status",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Attributes (-want +got):\n%s", diff)
	}
}
