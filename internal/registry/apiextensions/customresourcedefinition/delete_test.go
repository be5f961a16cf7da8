package customresourcedefinition

import (
	"slices"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/internal/apis/apiextensions/apihelpers"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// TestDeleteMarksForCleanup: the first DELETE of a CRD only marks it
// (deletionTimestamp, the cleanup finalizer, Terminating), as upstream, so
// its custom resources go first; preconditions are checked.
func TestDeleteMarksForCleanup(t *testing.T) {
	_, m := newStorage(t)
	crds := m["customresourcedefinitions"].(rest.StandardStorage)
	live := create(t, m, widget())
	if len(live.Finalizers) != 0 {
		t.Fatalf("a created CRD has finalizers %v; upstream adds the cleanup finalizer on delete", live.Finalizers)
	}

	badUID := types.UID("other")
	staleRV := "1"
	for _, tc := range []struct {
		name string
		pre  metav1.Preconditions
		want string
	}{
		{"uid", metav1.Preconditions{UID: &badUID}, "Precondition failed: UID in precondition: other, UID in object meta: " + string(live.UID)},
		{"resourceVersion", metav1.Preconditions{ResourceVersion: &staleRV}, "Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: " + live.ResourceVersion},
	} {
		_, _, err := crds.Delete(ctx, live.Name, rest.ValidateAllObjectFunc, &metav1.DeleteOptions{Preconditions: &tc.pre})
		if !apierrors.IsConflict(err) || err.Error() != `Operation cannot be fulfilled on customresourcedefinitions.apiextensions.k8s.io "widgets.example.com": `+tc.want {
			t.Errorf("%s precondition: %v, want a conflict %q", tc.name, err, tc.want)
		}
	}

	dry, deleted, err := crds.Delete(ctx, live.Name, rest.ValidateAllObjectFunc, &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil || deleted || dry.(*apiextensionsv1.CustomResourceDefinition).DeletionTimestamp == nil {
		t.Fatalf("dry-run delete = %v, %v, %v", dry, deleted, err)
	}
	if got, _ := crds.Get(ctx, live.Name, &metav1.GetOptions{}); got.(*apiextensionsv1.CustomResourceDefinition).DeletionTimestamp != nil {
		t.Fatal("a dry-run delete marked the stored CRD")
	}

	out, deleted, err := crds.Delete(ctx, live.Name, rest.ValidateAllObjectFunc, nil)
	if err != nil || deleted {
		t.Fatalf("delete = %v, %v; want the marked CRD, not deleted", deleted, err)
	}
	marked := out.(*apiextensionsv1.CustomResourceDefinition)
	c := apihelpers.FindCondition(marked, apiextensionsv1.Terminating)
	switch {
	case marked.DeletionTimestamp == nil:
		t.Error("no deletionTimestamp")
	case !slices.Equal(marked.Finalizers, []string{apihelpers.CustomResourceCleanupFinalizer}):
		t.Errorf("finalizers = %v", marked.Finalizers)
	case c == nil || c.Status != apiextensionsv1.ConditionTrue || c.Reason != "InstanceDeletionPending" ||
		c.Message != "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon":
		t.Errorf("Terminating = %+v", c)
	}

	// A second DELETE does not remove it: the finalizer holds the CRD.
	again, deleted, err := crds.Delete(ctx, live.Name, rest.ValidateAllObjectFunc, nil)
	if err != nil || deleted || !slices.Equal(again.(*apiextensionsv1.CustomResourceDefinition).Finalizers, marked.Finalizers) {
		t.Errorf("second delete = %v, %v; want the marked CRD, still there", deleted, err)
	}
}
