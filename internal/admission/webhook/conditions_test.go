package webhook

import (
	"context"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

// matchConditions compile in upstream's environment: the Kubernetes CEL
// libraries, and the authorizer variables backed by the server's
// authorizer (asked about the requester).
func TestConditionEnvironment(t *testing.T) {
	az := authorizer.Func(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		if a.User.GetName() == "alice" && a.Verb == "approve" && a.Resource == "configmaps" {
			return authorizer.DecisionAllow, "", nil
		}
		if a.User.GetName() == "system:serviceaccount:ns:bot" && a.Verb == "get" {
			return authorizer.DecisionAllow, "", nil
		}
		return authorizer.DecisionNoOpinion, "", nil
	})
	tests := []struct {
		name, expr string
		called     bool
	}{
		{"lists and regex", `[1, 2, 3].isSorted() && "abc".find("b") == "b"`, true},
		{"quantity", `quantity("1Gi").isGreaterThan(quantity("500Mi"))`, true},
		{"ip and cidr", `cidr("10.0.0.0/8").containsIP(ip("10.1.2.3"))`, true},
		{"url and semver", `url("https://example.com/x").getHost() == "example.com" && semver("1.2.3").isLessThan(semver("1.3.0"))`, true},
		{"authorizer allows the requester", `authorizer.group('').resource('configmaps').namespace('ns').check('approve').allowed()`, true},
		{"authorizer denies", `authorizer.group('').resource('secrets').check('approve').allowed()`, false},
		{"request resource", `authorizer.requestResource.check('approve').allowed()`, true},
		{"service account", `authorizer.serviceAccount('ns', 'bot').group('').resource('pods').check('get').allowed()`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixtureWith(t, func(o *Options) { o.Authorizer = az })
			f.addValidating("cfg", hookSpec{name: "v.example.com", path: "/allow",
				conditions: []admissionregistrationv1.MatchCondition{{Name: "c", Expression: tt.expr}}})
			if err := f.val.Validate(context.Background(), createAttrs(configMap("cm", nil))); err != nil {
				t.Fatal(err)
			}
			if called := len(f.callsTo("/allow")) > 0; called != tt.called {
				t.Errorf("called = %v, want %v", called, tt.called)
			}
		})
	}
}

// Without an authorizer (a chain built without one) a condition using it
// fails under the failure policy instead of matching wrongly.
func TestConditionWithoutAuthorizer(t *testing.T) {
	f := newFixture(t)
	f.addValidating("cfg", hookSpec{name: "v.example.com", path: "/allow",
		conditions: []admissionregistrationv1.MatchCondition{{Name: "c", Expression: `authorizer.requestResource.check('get').allowed()`}}})
	err := f.val.Validate(context.Background(), createAttrs(configMap("cm", nil)))
	if err == nil || !strings.Contains(err.Error(), "failed to evaluate match conditions") {
		t.Fatalf("Validate = %v", err)
	}
}

// request.options is the request's options object, as upstream exposes
// it to matchConditions.
func TestConditionSeesOptions(t *testing.T) {
	for _, tt := range []struct {
		expr   string
		called bool
	}{
		{`request.options.kind == "CreateOptions" && request.options.fieldManager == "kubectl-create"`, true},
		{`request.options.fieldManager == "other"`, false},
	} {
		t.Run(tt.expr, func(t *testing.T) {
			f := newFixture(t)
			f.addValidating("cfg", hookSpec{name: "v.example.com", path: "/allow",
				conditions: []admissionregistrationv1.MatchCondition{{Name: "c", Expression: tt.expr}}})
			a := createAttrs(configMap("cm", nil))
			a.Options.(*metav1.CreateOptions).FieldManager = "kubectl-create"
			if err := f.val.Validate(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			if called := len(f.callsTo("/allow")) > 0; called != tt.called {
				t.Errorf("called = %v, want %v", called, tt.called)
			}
		})
	}
}
