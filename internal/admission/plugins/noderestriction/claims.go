package noderestriction

import (
	"fmt"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/kapi-dev/kapi/internal/admission"
)

// admitPVCStatus lets a node change only the capacity, conditions and
// allocation status of a claim's status.
func admitPVCStatus(nodeName string, a *admission.Attributes) error {
	if a.Operation != admission.Update {
		return forbidden(a, fmt.Errorf("unexpected operation %q", a.Operation))
	}
	oldPVC, ok := a.OldObject.(*corev1.PersistentVolumeClaim)
	if !ok {
		return unexpectedType(a, a.OldObject)
	}
	newPVC, ok := a.Object.(*corev1.PersistentVolumeClaim)
	if !ok {
		return unexpectedType(a, a.Object)
	}
	oldPVC, newPVC = oldPVC.DeepCopy(), newPVC.DeepCopy()
	for _, c := range []*corev1.PersistentVolumeClaim{oldPVC, newPVC} {
		// An unconditional update leaves resourceVersion empty; managed
		// fields change with every write.
		c.ResourceVersion = ""
		c.ManagedFields = nil
		c.Status.Capacity = nil
		c.Status.Conditions = nil
		c.Status.AllocatedResourceStatuses = nil
		c.Status.AllocatedResources = nil
	}
	if !equality.Semantic.DeepEqual(oldPVC, newPVC) {
		return forbidden(a, fmt.Errorf("node %q is not allowed to update fields other than status.capacity and status.conditions: %v", nodeName, cmp.Diff(oldPVC, newPVC)))
	}
	return nil
}
