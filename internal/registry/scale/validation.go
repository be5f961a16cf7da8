package scale

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateScale checks a Scale sent to a scale subresource: its metadata
// and a desired replica count that is not negative.
func ValidateScale(s *autoscalingv1.Scale) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&s.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	if s.Spec.Replicas < 0 {
		allErrs = append(allErrs, field.Invalid(field.NewPath("spec", "replicas"), s.Spec.Replicas, "must be greater than or equal to 0"))
	}
	return allErrs
}
