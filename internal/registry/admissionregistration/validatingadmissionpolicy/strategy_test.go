package validatingadmissionpolicy

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	kapiadmissionregistrationv1 "github.com/kapi-dev/kapi/internal/apis/admissionregistration/v1"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func errorPaths(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	return out
}

func newStorage(t *testing.T) (rest.StandardStorage, rest.Patcher) {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	return storage["validatingadmissionpolicies"].(rest.StandardStorage), storage["validatingadmissionpolicies/status"].(rest.Patcher)
}

func TestGolden(t *testing.T) {
	store, _ := newStorage(t)
	// Defaults: failurePolicy Fail; matchConstraints matchPolicy
	// Equivalent, empty selectors, rule scope "*".
	registrytest.Golden(t, registrytest.NewScheme(t), store, "testdata", "validatingadmissionpolicy")
}

func policy() *admissionregistrationv1.ValidatingAdmissionPolicy {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{"CREATE"},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{Expression: "true"}},
		},
	}
	kapiadmissionregistrationv1.SetDefaultsValidatingAdmissionPolicy(p)
	return p
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*admissionregistrationv1.ValidatingAdmissionPolicy)
		want   []string
	}{
		{"valid", func(*admissionregistrationv1.ValidatingAdmissionPolicy) {}, nil},
		{"nothing to check", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) { p.Spec.Validations = nil },
			[]string{"FieldValueRequired spec.validations", "FieldValueRequired spec.auditAnnotations"}},
		{"no match constraints", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) { p.Spec.MatchConstraints = nil },
			[]string{"FieldValueRequired spec.matchConstraints"}},
		{"no resource rules", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.MatchConstraints.ResourceRules = nil
		},
			[]string{"FieldValueRequired spec.matchConstraints.resourceRules"}},
		{"no failure policy", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) { p.Spec.FailurePolicy = nil },
			[]string{"FieldValueRequired spec.failurePolicy"}},
		{"bad validation", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.Validations[0] = admissionregistrationv1.Validation{Message: "a\nb", Reason: ptr.To(metav1.StatusReasonConflict)}
		}, []string{"FieldValueRequired spec.validations[0].expression", "FieldValueInvalid spec.validations[0].message", "FieldValueNotSupported spec.validations[0].reason"}},
		{"bad param kind", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "a/b/c"}
		}, []string{"FieldValueInvalid spec.paramKind.apiVersion", "FieldValueRequired spec.paramKind.kind"}},
		{"bad variable", func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
			p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "in"}}
		}, []string{"FieldValueInvalid spec.variables[0].name", "FieldValueRequired spec.variables[0].expression"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		p := policy()
		tt.mutate(p)
		if diff := cmp.Diff(tt.want, errorPaths(s.Validate(context.Background(), p))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestStatusAndGeneration(t *testing.T) {
	store, status := newStorage(t)
	ctx := context.Background()
	withStatus := policy()
	withStatus.Status.ObservedGeneration = 7
	obj, err := store.Create(ctx, withStatus, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
	if p.Generation != 1 || p.Status.ObservedGeneration != 0 {
		t.Fatalf("created: generation %d, status %+v", p.Generation, p.Status)
	}
	st := p.DeepCopy()
	st.Status.ObservedGeneration = 1
	st.Spec.Validations[0].Expression = "false"
	obj, _, err = status.Update(ctx, "p", rest.DefaultUpdatedObjectInfo(st), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	p = obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
	if p.Status.ObservedGeneration != 1 || p.Spec.Validations[0].Expression != "true" || p.Generation != 1 {
		t.Fatalf("after status update: %+v", p)
	}
	respec := p.DeepCopy()
	respec.Status = admissionregistrationv1.ValidatingAdmissionPolicyStatus{}
	respec.Spec.Validations[0].Expression = "false"
	obj, _, err = store.Update(ctx, "p", rest.DefaultUpdatedObjectInfo(respec), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	p = obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
	if p.Status.ObservedGeneration != 1 || p.Generation != 2 {
		t.Errorf("after spec update: generation %d, status %+v", p.Generation, p.Status)
	}
}

func TestTable(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := policy()
	table, err := Table().WithClock(func() time.Time { return now }).ConvertToTable(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{"p", int64(1), "<unset>", "<unknown>"}, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
	p.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	table, _ = Table().ConvertToTable(context.Background(), p, nil)
	if got := table.Rows[0].Cells[2]; got != "v1/ConfigMap" {
		t.Errorf("paramKind cell = %v", got)
	}
}
