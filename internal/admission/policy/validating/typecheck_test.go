package validating

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission/policy"
	"github.com/kapi-dev/kapi/internal/apis/install"
)

func TestTypeCheck(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := install.InstallAll(scheme); err != nil {
		t.Fatal(err)
	}
	schemas := policy.NewBuiltinSchemas(scheme)
	tc := &TypeChecker{
		Schema: schemas.Schema,
		KindsFor: func(gvr schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
			if gvr.Resource == "deployments" {
				return []schema.GroupVersionKind{{Group: "apps", Version: "v1", Kind: "Deployment"}}, nil
			}
			return nil, nil
		},
	}
	tests := []struct {
		name, expr, msgExpr string
		want                []string // substrings, one per warning
	}{
		{name: "fine", expr: "object.spec.replicas <= 5 && object.metadata.name.startsWith('a') && object.spec.template.spec.containers.all(c, c.image != '')"},
		{name: "quantities and int-or-strings", expr: "object.spec.template.spec.containers.all(c, !has(c.resources.limits) || 'cpu' in c.resources.limits) && object.spec.strategy.rollingUpdate.maxSurge != 1"},
		{name: "undefined field", expr: "object.spec.replicaz > 1", want: []string{"apps/v1, Kind=Deployment: compilation failed: ERROR: <input>:1:12: undefined field 'replicaz'"}},
		{name: "message type error", expr: "true", msgExpr: "object.spec.replicas + 'x'", want: []string{"found no matching overload for '_+_'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := vap("p", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
				s.Validations = []admissionregistrationv1.Validation{{Expression: tt.expr, MessageExpression: tt.msgExpr}}
			})
			got := tc.Check(p)
			if len(got) != len(tt.want) {
				t.Fatalf("warnings = %+v, want %d", got, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i].Warning, w) {
					t.Errorf("warning %d = %q, want it to contain %q", i, got[i].Warning, w)
				}
			}
		})
	}
}
