package handlers

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/admission"
)

// Admission sees the request's whole options object, converted as
// upstream converts it for a patch and for an update that creates.
func TestAdmissionOptions(t *testing.T) {
	tm := func(kind string) metav1.TypeMeta { return metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: kind} }
	bg := metav1.DeletePropagationBackground
	tests := []struct {
		name   string
		req    runtime.Object
		op     admission.Operation
		dryRun bool
		want   runtime.Object
	}{{
		name: "create keeps its options",
		req:  &metav1.CreateOptions{FieldManager: "kubectl-create", FieldValidation: "Strict", DryRun: []string{"All"}},
		op:   admission.Create, dryRun: true,
		want: &metav1.CreateOptions{TypeMeta: tm("CreateOptions"), FieldManager: "kubectl-create", FieldValidation: "Strict", DryRun: []string{"All"}},
	}, {
		name: "update keeps its options",
		req:  &metav1.UpdateOptions{FieldManager: "kubectl-edit"},
		op:   admission.Update,
		want: &metav1.UpdateOptions{TypeMeta: tm("UpdateOptions"), FieldManager: "kubectl-edit"},
	}, {
		name: "an update that creates sends CreateOptions",
		req:  &metav1.UpdateOptions{FieldManager: "kubectl-replace", FieldValidation: "Warn"},
		op:   admission.Create,
		want: &metav1.CreateOptions{TypeMeta: tm("CreateOptions"), FieldManager: "kubectl-replace", FieldValidation: "Warn"},
	}, {
		name: "a patch sends UpdateOptions",
		req:  &metav1.PatchOptions{FieldManager: "kubectl-client-side-apply", Force: ptr.To(true)},
		op:   admission.Update,
		want: &metav1.UpdateOptions{TypeMeta: tm("UpdateOptions"), FieldManager: "kubectl-client-side-apply"},
	}, {
		name: "an apply that creates sends CreateOptions",
		req:  &metav1.PatchOptions{FieldManager: "kubectl", DryRun: []string{"All"}},
		op:   admission.Create, dryRun: true,
		want: &metav1.CreateOptions{TypeMeta: tm("CreateOptions"), FieldManager: "kubectl", DryRun: []string{"All"}},
	}, {
		name: "delete keeps its options",
		req:  &metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](5), PropagationPolicy: &bg, Preconditions: &metav1.Preconditions{UID: ptr.To[types.UID]("u")}},
		op:   admission.Delete,
		want: &metav1.DeleteOptions{TypeMeta: tm("DeleteOptions"), GracePeriodSeconds: ptr.To[int64](5), PropagationPolicy: &bg, Preconditions: &metav1.Preconditions{UID: ptr.To[types.UID]("u")}},
	}, {
		name: "a write from inside the server: only the dry run",
		op:   admission.Delete, dryRun: true,
		want: &metav1.DeleteOptions{TypeMeta: tm("DeleteOptions"), DryRun: []string{"All"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.req != nil {
				ctx = withRequestOptions(ctx, tt.req)
			}
			if got := optionsFor(ctx, tt.op, tt.dryRun); !equality.Semantic.DeepEqual(got, tt.want) {
				t.Errorf("options = %#v, want %#v", got, tt.want)
			}
		})
	}
}
