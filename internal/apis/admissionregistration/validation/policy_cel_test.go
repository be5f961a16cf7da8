package validation

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPolicyCompileErrors(t *testing.T) {
	fail := admissionregistrationv1.Fail
	exact := admissionregistrationv1.Exact
	vap := func(expr, msg string) *admissionregistrationv1.ValidatingAdmissionPolicy {
		return &admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "p"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				FailurePolicy: &fail,
				MatchConstraints: &admissionregistrationv1.MatchResources{
					MatchPolicy: &exact, NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
					ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{"CREATE"},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
					}}},
				},
				Validations: []admissionregistrationv1.Validation{{Expression: expr, MessageExpression: msg}},
			},
		}
	}
	tests := []struct {
		name, expr, msg string
		want            string // "" for no error
	}{
		{"fine", "object.spec.replicas <= 5", "'too many: ' + string(object.spec.replicas)", ""},
		{"syntax", "object.spec.replicas <=", "", "spec.validations[0].expression: Invalid value: \"object.spec.replicas <=\": compilation failed: ERROR: <input>:1:24: Syntax error"},
		{"not bool", "object.spec.replicas", "", "spec.validations[0].expression: Invalid value: \"object.spec.replicas\": must evaluate to bool but got dyn"},
		{"message not string", "true", "1", "spec.validations[0].messageExpression: Invalid value: \"1\": must evaluate to string but got int"},
		{"undeclared", "foo == 1", "", "undeclared reference to 'foo'"},
		{"params without paramKind", "params.x == 1", "", "undeclared reference to 'params'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := ValidateValidatingAdmissionPolicy(vap(tt.expr, tt.msg))
			if tt.want == "" {
				if len(errs) != 0 {
					t.Fatalf("errors = %v", errs)
				}
				return
			}
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), tt.want) {
				t.Fatalf("errors = %v, want one containing %q", errs, tt.want)
			}
		})
	}
}
