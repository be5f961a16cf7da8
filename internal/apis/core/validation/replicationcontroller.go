package validation

import (
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateReplicationController checks a replication controller.
func ValidateReplicationController(rc *corev1.ReplicationController) field.ErrorList {
	allErrs := ValidateObjectMeta(&rc.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, validateReplicationControllerSpec(&rc.Spec, field.NewPath("spec"))...)
}

// ValidateReplicationControllerUpdate checks an update: metadata changes
// and the new spec (no field of it is immutable).
func ValidateReplicationControllerUpdate(rc, old *corev1.ReplicationController) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&rc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, validateReplicationControllerSpec(&rc.Spec, field.NewPath("spec"))...)
}

// ValidateReplicationControllerStatusUpdate checks a write of
// replicationcontrollers/status.
func ValidateReplicationControllerStatusUpdate(rc, old *corev1.ReplicationController) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&rc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, validateReplicationControllerStatus(&rc.Status, field.NewPath("status"))...)
}

func validateReplicationControllerSpec(spec *corev1.ReplicationControllerSpec, fldPath *field.Path) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateNonnegativeField(int64(spec.MinReadySeconds), fldPath.Child("minReadySeconds"))
	if labels.Set(spec.Selector).AsSelector().Empty() {
		allErrs = append(allErrs, field.Required(fldPath.Child("selector"), ""))
	}
	// Replicas is defaulted to 1; a nil here comes from a caller that
	// skipped defaulting and counts as 0, as upstream's conversion does.
	var replicas int64
	if spec.Replicas != nil {
		replicas = int64(*spec.Replicas)
	}
	allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(replicas, fldPath.Child("replicas"))...)
	return append(allErrs, validateTemplateForRC(spec.Template, spec.Selector, fldPath.Child("template"))...)
}

// validateTemplateForRC: a template is required, matches the selector,
// restarts Always and has no activeDeadlineSeconds.
func validateTemplateForRC(template *corev1.PodTemplateSpec, selector map[string]string, fldPath *field.Path) field.ErrorList {
	if template == nil {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var allErrs field.ErrorList
	if sel := labels.Set(selector).AsSelector(); !sel.Empty() && !sel.Matches(labels.Set(template.Labels)) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("metadata", "labels"), template.Labels, "`selector` does not match template `labels`"))
	}
	allErrs = append(allErrs, ValidatePodTemplateSpec(template, fldPath)...)
	if template.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("spec", "restartPolicy"), template.Spec.RestartPolicy, []corev1.RestartPolicy{corev1.RestartPolicyAlways}))
	}
	if template.Spec.ActiveDeadlineSeconds != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicationController is not Supported"))
	}
	return allErrs
}

func validateReplicationControllerStatus(status *corev1.ReplicationControllerStatus, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, c := range []struct {
		name  string
		value int64
	}{
		{"replicas", int64(status.Replicas)},
		{"fullyLabeledReplicas", int64(status.FullyLabeledReplicas)},
		{"readyReplicas", int64(status.ReadyReplicas)},
		{"availableReplicas", int64(status.AvailableReplicas)},
		{"observedGeneration", status.ObservedGeneration},
	} {
		allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(c.value, fldPath.Child(c.name))...)
	}
	const msg = "cannot be greater than status.replicas"
	if status.FullyLabeledReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("fullyLabeledReplicas"), status.FullyLabeledReplicas, msg))
	}
	if status.ReadyReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("readyReplicas"), status.ReadyReplicas, msg))
	}
	if status.AvailableReplicas > status.Replicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("availableReplicas"), status.AvailableReplicas, msg))
	}
	if status.AvailableReplicas > status.ReadyReplicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("availableReplicas"), status.AvailableReplicas, "cannot be greater than readyReplicas"))
	}
	return allErrs
}
