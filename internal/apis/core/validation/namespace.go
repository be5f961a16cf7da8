package validation

import (
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateNamespaceName is the name rule of namespaces: a DNS label.
func ValidateNamespaceName(name string, prefix bool) []string {
	return apimachineryvalidation.ValidateNamespaceName(name, prefix)
}

// ValidateNamespace validates a namespace on create: its name and its spec
// finalizers. Upstream reports every spec finalizer error at
// spec.finalizers, without an index; kept for identical messages.
func ValidateNamespace(ns *corev1.Namespace) field.ErrorList {
	allErrs := ValidateObjectMeta(&ns.ObjectMeta, false, ValidateNamespaceName, field.NewPath("metadata"))
	for _, f := range ns.Spec.Finalizers {
		allErrs = append(allErrs, validateFinalizerName(string(f), field.NewPath("spec", "finalizers"))...)
	}
	return allErrs
}

// ValidateNamespaceUpdate validates the metadata of an update of the main
// resource; the strategy has already kept spec.finalizers and status.
func ValidateNamespaceUpdate(ns, old *corev1.Namespace) field.ErrorList {
	return ValidateObjectMetaUpdate(&ns.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
}

// ValidateNamespaceStatusUpdate validates a namespaces/status update: the
// phase must agree with deletionTimestamp. The path "status.Phase" is
// upstream's spelling.
func ValidateNamespaceStatusUpdate(ns, old *corev1.Namespace) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&ns.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	phasePath := field.NewPath("status", "Phase")
	if ns.DeletionTimestamp.IsZero() {
		if ns.Status.Phase != corev1.NamespaceActive {
			allErrs = append(allErrs, field.Invalid(phasePath, ns.Status.Phase, "may only be 'Active' if `deletionTimestamp` is empty"))
		}
	} else if ns.Status.Phase != corev1.NamespaceTerminating {
		allErrs = append(allErrs, field.Invalid(phasePath, ns.Status.Phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"))
	}
	return allErrs
}

// ValidateNamespaceFinalizeUpdate validates a namespaces/finalize update:
// the new spec finalizers, each at its index.
func ValidateNamespaceFinalizeUpdate(ns, old *corev1.Namespace) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&ns.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	for i, f := range ns.Spec.Finalizers {
		allErrs = append(allErrs, validateFinalizerName(string(f), field.NewPath("spec", "finalizers").Index(i))...)
	}
	return allErrs
}
