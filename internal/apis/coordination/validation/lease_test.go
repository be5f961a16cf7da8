package validation

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func describe(errs field.ErrorList) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, fmt.Sprintf("%s: %s: %s", e.Field, e.Type, e.Detail))
	}
	slices.Sort(out)
	return out
}

func TestValidateLease(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "kube-scheduler", Namespace: "kube-system"}
	strategy := func(s string) *coordinationv1.CoordinatedLeaseStrategy {
		return ptr.To(coordinationv1.CoordinatedLeaseStrategy(s))
	}
	tests := []struct {
		name string
		spec coordinationv1.LeaseSpec
		want []string
	}{
		{"valid", coordinationv1.LeaseSpec{HolderIdentity: ptr.To("a"), LeaseDurationSeconds: ptr.To[int32](15), LeaseTransitions: ptr.To[int32](0)}, nil},
		{"zero duration", coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr.To[int32](0)},
			[]string{"spec.leaseDurationSeconds: Invalid value: must be greater than 0"}},
		{"negative transitions", coordinationv1.LeaseSpec{LeaseTransitions: ptr.To[int32](-1)},
			[]string{"spec.leaseTransitions: Invalid value: must be greater than or equal to 0"}},
		{"known strategy", coordinationv1.LeaseSpec{Strategy: strategy("OldestEmulationVersion"), PreferredHolder: ptr.To("a")}, nil},
		{"unknown strategy", coordinationv1.LeaseSpec{Strategy: strategy("Newest")},
			[]string{`spec.strategy.strategy: Unsupported value: supported values: "OldestEmulationVersion"`}},
		{"custom strategy", coordinationv1.LeaseSpec{Strategy: strategy("example.com/mine")}, nil},
		{"bad custom strategy", coordinationv1.LeaseSpec{Strategy: strategy("a/b/c")},
			[]string{"spec.strategy.strategy: Invalid value: " + validation.IsQualifiedName("a/b/c")[0]}},
		{"preferred holder without strategy", coordinationv1.LeaseSpec{PreferredHolder: ptr.To("a")},
			[]string{"spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined"}},
	}
	for _, tt := range tests {
		lease := coordinationv1.Lease{ObjectMeta: meta, Spec: tt.spec}
		want := tt.want
		if want == nil {
			want = []string{}
		}
		if diff := cmp.Diff(want, describe(ValidateLease(&lease))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestValidateLeaseUpdate(t *testing.T) {
	old := coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l", Namespace: "ns", ResourceVersion: "1"}}
	lease := coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l", Namespace: "ns", ResourceVersion: "1"}, Spec: coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr.To[int32](-5)}}
	want := []string{"spec.leaseDurationSeconds: Invalid value: must be greater than 0"}
	if diff := cmp.Diff(want, describe(ValidateLeaseUpdate(&lease, &old))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
