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

// TestAuthorizerLibrary pins upstream's authorizer library: the errors of
// its builders, fieldSelector and labelSelector passed to the authorizer
// as requirements (a selector that does not parse as its parsing error),
// requestResource checked for every version, and the cost of a check
// (350000: a third check in one expression exceeds the per-expression
// limit).
func TestAuthorizerLibrary(t *testing.T) {
	var asked []authorizer.Attributes
	az := authorizer.Func(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		asked = append(asked, a)
		return authorizer.DecisionAllow, "", nil
	})
	rc := "authorizer.group('').resource('pods')"
	tests := []struct {
		name, expr, wantErr string
		check               func(t *testing.T, a []authorizer.Attributes)
	}{
		{name: "empty path", expr: "authorizer.path(' ').check('get').allowed()", wantErr: "path must not be empty"},
		{name: "empty resource", expr: "authorizer.group('apps').resource('').check('get').allowed()", wantErr: "resource must not be empty"},
		{name: "bad service account name", expr: "authorizer.serviceAccount('ns', 'Bad_Name').path('/x').check('get').allowed()", wantErr: "Invalid service account name"},
		{name: "bad service account namespace", expr: "authorizer.serviceAccount('not.a.label', 'bot').path('/x').check('get').allowed()", wantErr: "Invalid service account namespace"},
		{name: "selectors", expr: rc + ".fieldSelector('spec.nodeName=n1').labelSelector('app in (web),tier!=db').check('list').allowed()",
			check: func(t *testing.T, a []authorizer.Attributes) {
				f, l := a[0].FieldSelectorRequirements, a[0].LabelSelectorRequirements
				if len(f) != 1 || f[0].Field != "spec.nodeName" || f[0].Value != "n1" || a[0].FieldSelectorParsingErr != nil {
					t.Errorf("field selector requirements %+v (%v)", f, a[0].FieldSelectorParsingErr)
				}
				if len(l) != 2 || l[0].Key() != "app" || l[1].Key() != "tier" || a[0].LabelSelectorParsingErr != nil {
					t.Errorf("label selector requirements %+v (%v)", l, a[0].LabelSelectorParsingErr)
				}
			}},
		{name: "selectors that do not parse", expr: rc + ".fieldSelector('a==b==c').labelSelector('x in (').check('list').allowed()",
			check: func(t *testing.T, a []authorizer.Attributes) {
				if a[0].FieldSelectorParsingErr == nil || a[0].FieldSelectorRequirements != nil {
					t.Errorf("field selector: %+v, %v", a[0].FieldSelectorRequirements, a[0].FieldSelectorParsingErr)
				}
				if a[0].LabelSelectorParsingErr == nil || a[0].LabelSelectorRequirements != nil {
					t.Errorf("label selector: %+v, %v", a[0].LabelSelectorRequirements, a[0].LabelSelectorParsingErr)
				}
			}},
		{name: "request resource is every version", expr: "authorizer.requestResource.check('create').allowed()",
			check: func(t *testing.T, a []authorizer.Attributes) {
				if a[0].APIVersion != "*" || a[0].APIGroup != "apps" || a[0].Resource != "deployments" || a[0].Namespace != "ns" {
					t.Errorf("requestResource asked %+v", a[0])
				}
			}},
		{name: "two checks fit", expr: rc + ".check('get').allowed() && " + rc + ".check('list').allowed()"},
		{name: "three checks exceed the limit",
			expr:    rc + ".check('get').allowed() && " + rc + ".check('list').allowed() && " + rc + ".check('watch').allowed()",
			wantErr: "resulted in error: operation cancelled: actual cost limit exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked = nil
			p := newTestPlugin(t, vap("p", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
				s.Validations = []admissionregistrationv1.Validation{{Expression: tt.expr}}
			}), binding("b", "p"))
			p.Authorizer = az
			err := p.Validate(context.Background(), createAttrs(deployment(3, nil)))
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
			if tt.check != nil {
				if len(asked) == 0 {
					t.Fatal("the authorizer was not asked")
				}
				tt.check(t, asked)
			}
		})
	}
}

// TestCostBudget: the expressions of one evaluation share upstream's
// budget of 10M; once spent, the policy fails with upstream's message.
func TestCostBudget(t *testing.T) {
	az := authorizer.Func(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return authorizer.DecisionAllow, "", nil
	})
	two := "authorizer.path('/a').check('get').allowed() && authorizer.path('/b').check('get').allowed()"
	p := newTestPlugin(t, vap("p", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
		for range 15 { // 15 × 700000 > 10M
			s.Validations = append(s.Validations, admissionregistrationv1.Validation{Expression: two})
		}
	}), binding("b", "p"))
	p.Authorizer = az
	err := p.Validate(context.Background(), createAttrs(deployment(3, nil)))
	want := "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: validation failed due to running out of cost budget, no further validation rules will be run"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want %q", err, want)
	}
}
