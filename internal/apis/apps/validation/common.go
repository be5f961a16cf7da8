// Package validation checks apps/v1 objects (deployments, replicasets,
// statefulsets, daemonsets, controllerrevisions) the way kube-apiserver
// does: the same rules, field paths and messages, written against the
// k8s.io/api types. Defaults are assumed applied (replicas and the strategy
// fields are set), as they are for every object the server decodes.
// Functions never change the objects they are given.
package validation

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// selectorMismatchMsg is upstream's message when the pod template would
// not be selected by its controller.
const selectorMismatchMsg = "`selector` does not match template `labels`"

// cannotExceedReplicasMsg is upstream's message for status counts above
// status.replicas.
const cannotExceedReplicasMsg = "cannot be greater than status.replicas"

// nonNegative is ValidateNonnegativeField for int32 fields.
func nonNegative(v int32, fldPath *field.Path) field.ErrorList {
	return apimachineryvalidation.ValidateNonnegativeField(int64(v), fldPath)
}

// deref reads an int32 pointer the way upstream's conversion to its
// internal types does: nil is 0.
func deref(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// validateSelector checks a required, non-empty, strictly valid label
// selector. kind names the resource in upstream's empty-selector message.
func validateSelector(sel *metav1.LabelSelector, kind string, fldPath *field.Path) field.ErrorList {
	if sel == nil {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	allErrs := metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, fldPath)
	if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
		allErrs = append(allErrs, field.Invalid(fldPath, sel, "empty selector is invalid for "+kind))
	}
	return allErrs
}

// templateMatchesSelector reports a template whose labels the selector
// does not select. A nil selector selects nothing, so a missing selector
// reports both Required and this, as upstream does.
func templateMatchesSelector(selector labels.Selector, template *corev1.PodTemplateSpec, fldPath *field.Path) field.ErrorList {
	if selector.Empty() || selector.Matches(labels.Set(template.Labels)) {
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath.Child("metadata", "labels"), template.Labels, selectorMismatchMsg)}
}

// validateControllerTemplate checks the pod template of a controller that
// keeps its pods running (replicasets, deployments, daemonsets): selected
// by the selector, a valid pod template, restartPolicy Always, no
// activeDeadlineSeconds. kind names the resource in upstream's message.
func validateControllerTemplate(sel *metav1.LabelSelector, template *corev1.PodTemplateSpec, kind string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	selector, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("selector"), sel, "invalid label selector"))
	} else {
		allErrs = append(allErrs, templateMatchesSelector(selector, template, fldPath.Child("template"))...)
	}
	allErrs = append(allErrs, corevalidation.ValidatePodTemplateSpec(template, fldPath.Child("template"))...)
	allErrs = append(allErrs, restartAlwaysOnly(template, kind, fldPath.Child("template", "spec"))...)
	return allErrs
}

// restartAlwaysOnly: controllers replace pods that end, so their pods
// must restart in place and may not have a deadline.
func restartAlwaysOnly(template *corev1.PodTemplateSpec, kind string, specPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if template.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		allErrs = append(allErrs, field.NotSupported(specPath.Child("restartPolicy"), template.Spec.RestartPolicy, []string{string(corev1.RestartPolicyAlways)}))
	}
	if template.Spec.ActiveDeadlineSeconds != nil {
		allErrs = append(allErrs, field.Forbidden(specPath.Child("activeDeadlineSeconds"), "activeDeadlineSeconds in "+kind+" is not Supported"))
	}
	return allErrs
}

// ValidatePositiveIntOrPercent accepts a non-negative integer or a valid
// percentage.
func ValidatePositiveIntOrPercent(v intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch v.Type {
	case intstr.String:
		for _, msg := range validation.IsValidPercent(v.StrVal) {
			allErrs = append(allErrs, field.Invalid(fldPath, v, msg))
		}
	case intstr.Int:
		allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(int64(v.IntValue()), fldPath)...)
	default:
		allErrs = append(allErrs, field.Invalid(fldPath, v, "must be an integer or percentage (e.g '5%%')"))
	}
	return allErrs
}

// percentValue returns the number of a valid percentage.
func percentValue(v intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || len(validation.IsValidPercent(v.StrVal)) != 0 {
		return 0, false
	}
	n, _ := strconv.Atoi(v.StrVal[:len(v.StrVal)-1])
	return n, true
}

// intOrPercentValue is the number of an integer or a percentage.
func intOrPercentValue(v intstr.IntOrString) int {
	if n, ok := percentValue(v); ok {
		return n
	}
	return v.IntValue()
}

// isNotMoreThan100Percent rejects percentages above 100%.
func isNotMoreThan100Percent(v intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	if n, ok := percentValue(v); ok && n > 100 {
		return field.ErrorList{field.Invalid(fldPath, v, "must not be greater than 100%")}
	}
	return nil
}

// intOrZero reads an optional IntOrString the way upstream's conversion
// to its internal types does: nil is the integer 0.
func intOrZero(p *intstr.IntOrString) intstr.IntOrString {
	if p == nil {
		return intstr.IntOrString{}
	}
	return *p
}

// collisionCountNotDecremented: status.collisionCount only grows.
func collisionCountNotDecremented(count, old *int32, fldPath *field.Path) field.ErrorList {
	if old == nil || (count != nil && *count >= *old) {
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath, deref(count), "cannot be decremented")}
}
