package quota

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
)

var pvcCountName = CountResourceName(schema.GroupResource{Resource: "persistentvolumeclaims"})

// pvcResources may also be limited per storage class, as
// <class>.storageclass.storage.k8s.io/<resource>.
var pvcResources = []corev1.ResourceName{corev1.ResourcePersistentVolumeClaims, corev1.ResourceRequestsStorage}

// StorageClassSuffix joins a storage class and a resource in a quota name.
const StorageClassSuffix = ".storageclass.storage.k8s.io/"

// pvcEvaluator measures claims: counts and requested storage, overall and
// per storage class.
type pvcEvaluator struct{}

// NewPersistentVolumeClaimEvaluator measures persistent volume claims.
func NewPersistentVolumeClaimEvaluator() Evaluator { return pvcEvaluator{} }

func (pvcEvaluator) GroupResource() schema.GroupResource {
	return schema.GroupResource{Resource: "persistentvolumeclaims"}
}

func (pvcEvaluator) Handles(op admission.Operation, _ string, _, _ runtime.Object) bool {
	return op == admission.Create || op == admission.Update
}

func (pvcEvaluator) MatchingResources(names []corev1.ResourceName) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, n := range names {
		if n == pvcCountName || Contains(pvcResources, n) {
			out = append(out, n)
			continue
		}
		for _, r := range pvcResources {
			if strings.HasSuffix(string(n), StorageClassSuffix+string(r)) {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

// MatchesScope: claims are only in the VolumeAttributesClass scope, by
// the classes of their spec, status and pending modification.
func (pvcEvaluator) MatchesScope(sel corev1.ScopedResourceSelectorRequirement, obj runtime.Object) (bool, error) {
	if sel.ScopeName != corev1.ResourceQuotaScopeVolumeAttributesClass {
		return false, nil
	}
	pvc, err := asPVC(obj)
	if err != nil {
		return false, err
	}
	var values []string
	add := func(s string) {
		if s != "" && !slices.Contains(values, s) {
			values = append(values, s)
		}
	}
	if pvc.Spec.VolumeAttributesClassName != nil {
		add(*pvc.Spec.VolumeAttributesClassName)
	}
	if pvc.Status.CurrentVolumeAttributesClassName != nil {
		add(*pvc.Status.CurrentVolumeAttributesClassName)
	}
	if m := pvc.Status.ModifyVolumeStatus; m != nil {
		add(m.TargetVolumeAttributesClassName)
	}
	if sel.Operator == corev1.ScopeSelectorOpExists {
		return len(values) > 0, nil
	}
	return selectorMatches(sel, values)
}

func (pvcEvaluator) Constraints([]corev1.ResourceName, runtime.Object) error { return nil }

func (pvcEvaluator) Usage(obj runtime.Object) (corev1.ResourceList, error) {
	pvc, err := asPVC(obj)
	if err != nil {
		return nil, err
	}
	one := *resource.NewQuantity(1, resource.DecimalSI)
	out := corev1.ResourceList{corev1.ResourcePersistentVolumeClaims: one, pvcCountName: one}
	class := ClaimClass(pvc)
	if class != "" {
		out[corev1.ResourceName(class+StorageClassSuffix+string(corev1.ResourcePersistentVolumeClaims))] = one
	}
	if storage := claimStorage(pvc); storage != nil {
		out[corev1.ResourceRequestsStorage] = *storage
		if class != "" {
			out[corev1.ResourceName(class+StorageClassSuffix+string(corev1.ResourceRequestsStorage))] = *storage
		}
	}
	return out, nil
}

// claimStorage is the larger of the requested and the allocated storage,
// rounded up to whole bytes.
func claimStorage(pvc *corev1.PersistentVolumeClaim) *resource.Quantity {
	req, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	if !ok {
		return nil
	}
	q := req.DeepCopy()
	if alloc, ok := pvc.Status.AllocatedResources[corev1.ResourceStorage]; ok && alloc.Cmp(q) > 0 {
		q = alloc.DeepCopy()
	}
	q.RoundUp(0)
	return &q
}

// ClaimClass is a claim's storage class: the field, else the beta
// annotation.
func ClaimClass(pvc *corev1.PersistentVolumeClaim) string {
	if c, ok := pvc.Annotations[corev1.BetaStorageClassAnnotation]; ok {
		return c
	}
	if pvc.Spec.StorageClassName != nil {
		return *pvc.Spec.StorageClassName
	}
	return ""
}

func asPVC(obj runtime.Object) (*corev1.PersistentVolumeClaim, error) {
	pvc, ok := obj.(*corev1.PersistentVolumeClaim)
	if !ok {
		return nil, fmt.Errorf("expect *v1.PersistentVolumeClaim, got %T", obj)
	}
	return pvc, nil
}
