package poddisruptionbudget

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func newPDB() *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: ptr.To(intstr.FromInt32(2)),
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		},
	}
}

func describe(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field+": "+e.Detail)
	}
	slices.Sort(out)
	return out
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*policyv1.PodDisruptionBudget)
		want   []string
	}{
		{"valid", func(*policyv1.PodDisruptionBudget) {}, nil},
		{"percent", func(p *policyv1.PodDisruptionBudget) { p.Spec.MinAvailable = ptr.To(intstr.FromString("50%")) }, nil},
		{"no selector", func(p *policyv1.PodDisruptionBudget) { p.Spec.Selector = nil }, nil},
		{"both set", func(p *policyv1.PodDisruptionBudget) { p.Spec.MaxUnavailable = ptr.To(intstr.FromInt32(1)) },
			[]string{"FieldValueInvalid spec: minAvailable and maxUnavailable cannot be both set"}},
		{"over 100%", func(p *policyv1.PodDisruptionBudget) { p.Spec.MinAvailable = ptr.To(intstr.FromString("150%")) },
			[]string{"FieldValueInvalid spec.minAvailable: must not be greater than 100%"}},
		{"negative", func(p *policyv1.PodDisruptionBudget) {
			p.Spec.MinAvailable, p.Spec.MaxUnavailable = nil, ptr.To(intstr.FromInt32(-1))
		}, []string{"FieldValueInvalid spec.maxUnavailable: must be greater than or equal to 0"}},
		{"not a percent", func(p *policyv1.PodDisruptionBudget) { p.Spec.MinAvailable = ptr.To(intstr.FromString("half")) },
			[]string{"FieldValueInvalid spec.minAvailable: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"}},
		{"bad selector", func(p *policyv1.PodDisruptionBudget) {
			p.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}
		}, []string{`FieldValueInvalid spec.selector.matchExpressions[0].operator: not a valid selector operator`}},
		{"eviction policy", func(p *policyv1.PodDisruptionBudget) {
			p.Spec.UnhealthyPodEvictionPolicy = ptr.To(policyv1.UnhealthyPodEvictionPolicyType("Never"))
		}, []string{`FieldValueNotSupported spec.unhealthyPodEvictionPolicy: supported values: "AlwaysAllow", "IfHealthyBudget"`}},
	}
	s := NewStrategy(runtime.NewScheme())
	for _, tt := range tests {
		pdb := newPDB()
		tt.mutate(pdb)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), pdb))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestValidateStatus(t *testing.T) {
	s := NewStatusStrategy(runtime.NewScheme())
	pdb := newPDB()
	pdb.Status.DisruptionsAllowed = -1
	pdb.Status.Conditions = []metav1.Condition{{Type: "DisruptionAllowed", Status: "Maybe"}}
	got := describe(s.ValidateUpdate(context.Background(), pdb, newPDB()))
	want := []string{
		"FieldValueInvalid status.disruptionsAllowed: must be greater than or equal to 0",
		`FieldValueNotSupported status.conditions[0].status: supported values: "False", "True", "Unknown"`,
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing %q in %q", w, got)
		}
	}
}

func TestTable(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pdb := newPDB()
	pdb.CreationTimestamp = metav1.NewTime(now.Add(-3 * 24 * time.Hour))
	pdb.Status.DisruptionsAllowed = 1
	table, err := Table().WithClock(func() time.Time { return now }).ConvertToTable(context.Background(), pdb, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"web", "2", "N/A", int64(1), "3d"}
	if diff := cmp.Diff(want, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}
