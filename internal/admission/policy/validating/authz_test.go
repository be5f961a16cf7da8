package validating

import (
	"context"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

// TestAuthorizer: expressions ask the server's authorizer about the
// requester, a service account and the request's own resource.
func TestAuthorizer(t *testing.T) {
	var asked []authorizer.Attributes
	az := authorizer.Func(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		asked = append(asked, a)
		if a.User.GetName() == "alice" && a.Resource == "deployments" && a.Verb == "scale-up" {
			return authorizer.DecisionAllow, "alice may", nil
		}
		return authorizer.DecisionNoOpinion, "no", nil
	})
	tests := []struct {
		name, expr, wantErr string
	}{
		{"requester allowed", "object.spec.replicas <= 5 || authorizer.group('apps').resource('deployments').namespace('ns').check('scale-up').allowed()", ""},
		{"service account denied", "authorizer.serviceAccount('ns', 'bot').group('apps').resource('deployments').check('scale-up').allowed()", "failed expression"},
		{"request resource", "authorizer.requestResource.check('scale-up').allowed() && authorizer.requestResource.check('other').reason() == 'no'", ""},
		{"path", "!authorizer.path('/healthz').check('get').allowed() && !authorizer.path('/healthz').check('get').errored()", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked = nil
			p := newTestPlugin(t, vap("p", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
				s.Validations = []admissionregistrationv1.Validation{{Expression: tt.expr}}
			}), binding("b", "p"))
			p.Authorizer = az
			err := p.Validate(context.Background(), createAttrs(deployment(9, nil)))
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
			if len(asked) == 0 {
				t.Fatal("the authorizer was not asked")
			}
		})
	}
	if a := asked[0]; a.Path != "/healthz" || a.Verb != "get" || a.User.GetName() != "alice" {
		t.Errorf("path check asked %+v", a)
	}
}
