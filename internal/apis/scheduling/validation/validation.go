// Package validation checks scheduling.k8s.io/v1 objects the way
// kube-apiserver does, against the k8s.io/api types.
package validation

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
	kapischedulingv1 "github.com/kapi-dev/kapi/internal/apis/scheduling/v1"
)

// ValidatePriorityClass checks a new priority class: names starting with
// "system-" are reserved for the system classes, and other classes may
// not exceed the highest user-definable value.
func ValidatePriorityClass(pc *schedulingv1.PriorityClass) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&pc.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	if strings.HasPrefix(pc.Name, kapischedulingv1.SystemPriorityClassPrefix) {
		if ok, err := kapischedulingv1.IsKnownSystemPriorityClass(pc.Name, pc.Value, pc.GlobalDefault); !ok {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("metadata", "name"),
				"priority class names with '"+kapischedulingv1.SystemPriorityClassPrefix+"' prefix are reserved for system use only. error: "+err.Error()))
		}
	} else if pc.Value > kapischedulingv1.HighestUserDefinablePriority {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("value"),
			fmt.Sprintf("maximum allowed value of a user defined priority is %v", kapischedulingv1.HighestUserDefinablePriority)))
	}
	if pc.PreemptionPolicy != nil {
		allErrs = append(allErrs, validatePreemptionPolicy(pc.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
	}
	return allErrs
}

// ValidatePriorityClassUpdate checks an update: value and
// preemptionPolicy are immutable.
func ValidatePriorityClassUpdate(pc, old *schedulingv1.PriorityClass) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&pc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	if pc.Value != old.Value {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
	}
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(pc.PreemptionPolicy, old.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
	return allErrs
}

func validatePreemptionPolicy(policy *corev1.PreemptionPolicy, fldPath *field.Path) field.ErrorList {
	switch *policy {
	case corev1.PreemptLowerPriority, corev1.PreemptNever:
		return nil
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	default:
		return field.ErrorList{field.NotSupported(fldPath, *policy, []corev1.PreemptionPolicy{corev1.PreemptLowerPriority, corev1.PreemptNever})}
	}
}
