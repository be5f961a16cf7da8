// Package validation checks core/v1 objects the way kube-apiserver does:
// the same rules, field paths and messages, written against the k8s.io/api
// types. Functions take the new object (and the old one for updates) and
// return a field.ErrorList; they never change the objects they are given.
package validation

import (
	"strings"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FinalizerKubernetes is the namespace finalizer the namespace controller
// removes once a namespace's content is gone.
const FinalizerKubernetes = "kubernetes"

// immutableWhenSetMsg is upstream's message for writes to an immutable
// config map or secret.
const immutableWhenSetMsg = "field is immutable when `immutable` is set"

// ValidateObjectMeta validates metadata on create with the name rule of the
// resource (nameFn), and rejects finalizer names that are neither fully
// qualified nor one of the standard ones.
func ValidateObjectMeta(meta *metav1.ObjectMeta, requiresNamespace bool, nameFn apimachineryvalidation.ValidateNameFunc, fldPath *field.Path) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(meta, requiresNamespace, nameFn, fldPath)
	for i, f := range meta.Finalizers {
		allErrs = append(allErrs, validateKubeFinalizerName(f, fldPath.Child("finalizers").Index(i))...)
	}
	return allErrs
}

// ValidateObjectMetaUpdate validates metadata on update (immutable name,
// namespace, uid, creationTimestamp, ...) with the same finalizer check.
func ValidateObjectMetaUpdate(newMeta, oldMeta *metav1.ObjectMeta, fldPath *field.Path) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(newMeta, oldMeta, fldPath)
	for i, f := range newMeta.Finalizers {
		allErrs = append(allErrs, validateKubeFinalizerName(f, fldPath.Child("finalizers").Index(i))...)
	}
	return allErrs
}

// IsStandardFinalizerName reports the finalizer names Kubernetes defines
// without a domain prefix.
func IsStandardFinalizerName(name string) bool {
	switch name {
	case FinalizerKubernetes, metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents:
		return true
	}
	return false
}

// validateKubeFinalizerName accepts any name with a "/" (its syntax is
// checked elsewhere) and only the standard names without one.
func validateKubeFinalizerName(name string, fldPath *field.Path) field.ErrorList {
	if !strings.Contains(name, "/") && !IsStandardFinalizerName(name) {
		return field.ErrorList{field.Invalid(fldPath, name, "name is neither a standard finalizer name nor is it fully qualified")}
	}
	return nil
}

// validateFinalizerName checks a namespace spec finalizer: a qualified
// name that is standard or fully qualified.
func validateFinalizerName(name string, fldPath *field.Path) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateFinalizerName(name, fldPath)
	return append(allErrs, validateKubeFinalizerName(name, fldPath)...)
}
