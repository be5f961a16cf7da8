// Package validation checks policy/v1 PodDisruptionBudgets the way
// kube-apiserver does: the same rules, field paths and messages.
package validation

import (
	"strconv"
	"strings"

	policyv1 "k8s.io/api/policy/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Options relaxes the selector check for a stored budget that newer rules
// reject.
type Options struct {
	AllowInvalidLabelValueInSelector bool
}

// ValidatePodDisruptionBudget checks a budget's spec. Upstream checks its
// metadata only with the rules every object has.
func ValidatePodDisruptionBudget(pdb *policyv1.PodDisruptionBudget, opts Options) field.ErrorList {
	return ValidatePodDisruptionBudgetSpec(&pdb.Spec, opts, field.NewPath("spec"))
}

// ValidatePodDisruptionBudgetSpec: at most one of minAvailable and
// maxUnavailable, each a non-negative number or a percentage up to 100%,
// and a valid selector.
func ValidatePodDisruptionBudgetSpec(spec *policyv1.PodDisruptionBudgetSpec, opts Options, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if spec.MinAvailable != nil && spec.MaxUnavailable != nil {
		allErrs = append(allErrs, field.Invalid(fldPath, spec, "minAvailable and maxUnavailable cannot be both set"))
	}
	if spec.MinAvailable != nil {
		allErrs = append(allErrs, validateIntOrPercent(*spec.MinAvailable, fldPath.Child("minAvailable"))...)
	}
	if spec.MaxUnavailable != nil {
		allErrs = append(allErrs, validateIntOrPercent(*spec.MaxUnavailable, fldPath.Child("maxUnavailable"))...)
	}
	selOpts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: opts.AllowInvalidLabelValueInSelector}
	allErrs = append(allErrs, metav1validation.ValidateLabelSelector(spec.Selector, selOpts, fldPath.Child("selector"))...)
	if p := spec.UnhealthyPodEvictionPolicy; p != nil && *p != policyv1.IfHealthyBudget && *p != policyv1.AlwaysAllow {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("unhealthyPodEvictionPolicy"), *p,
			[]policyv1.UnhealthyPodEvictionPolicyType{policyv1.AlwaysAllow, policyv1.IfHealthyBudget}))
	}
	return allErrs
}

// validateIntOrPercent: a non-negative integer or a percentage of at most
// 100%.
func validateIntOrPercent(v intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch v.Type {
	case intstr.String:
		for _, msg := range utilvalidation.IsValidPercent(v.StrVal) {
			allErrs = append(allErrs, field.Invalid(fldPath, v, msg))
		}
		if n, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%")); err == nil && strings.HasSuffix(v.StrVal, "%") && n > 100 {
			allErrs = append(allErrs, field.Invalid(fldPath, v, "must not be greater than 100%"))
		}
	case intstr.Int:
		allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(int64(v.IntValue()), fldPath)...)
	default:
		allErrs = append(allErrs, field.Invalid(fldPath, v, "must be an integer or percentage (e.g '5%')"))
	}
	return allErrs
}

// ValidatePodDisruptionBudgetStatusUpdate checks a status write: valid
// conditions and counters that cannot be negative.
func ValidatePodDisruptionBudgetStatusUpdate(status *policyv1.PodDisruptionBudgetStatus, fldPath *field.Path) field.ErrorList {
	allErrs := metav1validation.ValidateConditions(status.Conditions, fldPath.Child("conditions"))
	counters := []struct {
		name  string
		value int32
	}{
		{"disruptionsAllowed", status.DisruptionsAllowed},
		{"currentHealthy", status.CurrentHealthy},
		{"desiredHealthy", status.DesiredHealthy},
		{"expectedPods", status.ExpectedPods},
	}
	for _, c := range counters {
		allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(int64(c.value), fldPath.Child(c.name))...)
	}
	return allErrs
}
