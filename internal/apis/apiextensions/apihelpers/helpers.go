// Package apihelpers holds kapi's small helpers over the upstream
// apiextensions.k8s.io/v1 types: conditions and the cleanup finalizer.
// (Upstream's own helpers live beside its server code, which kapi does
// not import.)
package apihelpers

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FindCondition returns crd's condition of type t, or nil.
func FindCondition(crd *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType) *apiextensionsv1.CustomResourceDefinitionCondition {
	for i := range crd.Status.Conditions {
		if crd.Status.Conditions[i].Type == t {
			return &crd.Status.Conditions[i]
		}
	}
	return nil
}

// SetCondition adds or replaces a condition. lastTransitionTime moves only
// when the status flips (or was never set), as clients read it as "since".
func SetCondition(crd *apiextensionsv1.CustomResourceDefinition, c apiextensionsv1.CustomResourceDefinitionCondition, now metav1.Time) {
	old := FindCondition(crd, c.Type)
	if old == nil {
		c.LastTransitionTime = now
		crd.Status.Conditions = append(crd.Status.Conditions, c)
		return
	}
	if old.Status != c.Status || old.LastTransitionTime.IsZero() {
		old.LastTransitionTime = now
	}
	old.Status, old.Reason, old.Message = c.Status, c.Reason, c.Message
}

// CustomResourceCleanupFinalizer holds a deleted CRD until its custom
// resources are gone.
const CustomResourceCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"
