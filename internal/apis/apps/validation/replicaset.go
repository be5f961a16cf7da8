package validation

import (
	appsv1 "k8s.io/api/apps/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// ValidateReplicaSetName is the rule for replica set names.
var ValidateReplicaSetName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateReplicaSet validates a replica set on create.
func ValidateReplicaSet(rs *appsv1.ReplicaSet) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&rs.ObjectMeta, true, ValidateReplicaSetName, field.NewPath("metadata"))
	return append(allErrs, ValidateReplicaSetSpec(&rs.Spec, field.NewPath("spec"))...)
}

// ValidateReplicaSetUpdate validates an update: metadata rules, the new
// spec, and the selector, which apps/v1 makes immutable.
func ValidateReplicaSetUpdate(rs, old *appsv1.ReplicaSet) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&rs.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidateReplicaSetSpec(&rs.Spec, field.NewPath("spec"))...)
	return append(allErrs, apimachineryvalidation.ValidateImmutableField(rs.Spec.Selector, old.Spec.Selector, field.NewPath("spec", "selector"))...)
}

// ValidateReplicaSetSpec validates a replica set spec at fldPath.
// Upstream's empty-selector message says "deployment" here too.
func ValidateReplicaSetSpec(spec *appsv1.ReplicaSetSpec, fldPath *field.Path) field.ErrorList {
	allErrs := nonNegative(deref(spec.Replicas), fldPath.Child("replicas"))
	allErrs = append(allErrs, nonNegative(spec.MinReadySeconds, fldPath.Child("minReadySeconds"))...)
	allErrs = append(allErrs, validateSelector(spec.Selector, "deployment", fldPath.Child("selector"))...)
	return append(allErrs, validateControllerTemplate(spec.Selector, &spec.Template, "ReplicaSet", fldPath)...)
}

// ValidateReplicaSetStatusUpdate validates a write of the status
// subresource.
func ValidateReplicaSetStatusUpdate(rs, old *appsv1.ReplicaSet) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&rs.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateReplicaSetStatus(&rs.Status, field.NewPath("status"))...)
}

// ValidateReplicaSetStatus checks the counts are non-negative and
// consistent.
func ValidateReplicaSetStatus(s *appsv1.ReplicaSetStatus, fldPath *field.Path) field.ErrorList {
	allErrs := nonNegative(s.Replicas, fldPath.Child("replicas"))
	allErrs = append(allErrs, nonNegative(s.FullyLabeledReplicas, fldPath.Child("fullyLabeledReplicas"))...)
	allErrs = append(allErrs, nonNegative(s.ReadyReplicas, fldPath.Child("readyReplicas"))...)
	allErrs = append(allErrs, nonNegative(s.AvailableReplicas, fldPath.Child("availableReplicas"))...)
	allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(s.ObservedGeneration, fldPath.Child("observedGeneration"))...)
	if s.FullyLabeledReplicas > s.Replicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("fullyLabeledReplicas"), s.FullyLabeledReplicas, cannotExceedReplicasMsg))
	}
	if s.ReadyReplicas > s.Replicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("readyReplicas"), s.ReadyReplicas, cannotExceedReplicasMsg))
	}
	if s.AvailableReplicas > s.Replicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("availableReplicas"), s.AvailableReplicas, cannotExceedReplicasMsg))
	}
	if s.AvailableReplicas > s.ReadyReplicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("availableReplicas"), s.AvailableReplicas, "cannot be greater than readyReplicas"))
	}
	return allErrs
}
