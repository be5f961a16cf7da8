package validating

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/audit"
	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
)

type nopBackend struct{}

func (nopBackend) ProcessEvents(...*auditv1.Event) bool { return true }
func (nopBackend) Run(<-chan struct{}) error            { return nil }
func (nopBackend) Shutdown()                            {}

// TestAuditAnnotations: the Audit action records upstream's
// validation_failure annotation, and auditAnnotations publish
// "<policy>/<key>" values (null and empty values left out).
func TestAuditAnnotations(t *testing.T) {
	p := newTestPlugin(t, []runtime.Object{
		vap("p", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{
				{Key: "replicas", ValueExpression: "'asked for ' + string(object.spec.replicas)"},
				{Key: "none", ValueExpression: "null"},
			}
		}),
		binding("b", "p", admissionregistrationv1.Audit),
	}...)
	rec := audit.NewRecord(audit.RequestAuditConfig{Level: auditv1.LevelMetadata}, nopBackend{}, auditv1.Event{})
	ctx := audit.WithRecord(context.Background(), rec)
	if err := p.Validate(ctx, createAttrs(deployment(7, nil))); err != nil {
		t.Fatalf("Audit must not deny: %v", err)
	}
	var got map[string]string
	rec.Update(func(e *auditv1.Event) { got = e.Annotations })
	want := map[string]string{
		"p/replicas": "asked for 7",
		"validation.policy.admission.k8s.io/validation_failure": `[{"message":"failed expression: object.spec.replicas \u003c= 5","policy":"p","binding":"b","expressionIndex":0,"validationActions":["Audit"]}]`,
	}
	if len(got) != len(want) {
		t.Fatalf("annotations = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("annotation %s = %q, want %q", k, got[k], v)
		}
	}
}

// TestOutOfBudget: an expression that spends the whole budget fails the
// request under failurePolicy Fail with upstream's message.
func TestOutOfBudget(t *testing.T) {
	p := newTestPlugin(t, vap("p", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
		s.Validations = []admissionregistrationv1.Validation{{
			Expression: "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a > 0))))))",
		}}
	}), binding("b", "p"))
	err := p.Validate(context.Background(), createAttrs(deployment(1, nil)))
	const want = "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression '[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a > 0))))))' resulted in error: operation cancelled: actual cost limit exceeded"
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
}
