package validation

import (
	resourcev1 "k8s.io/api/resource/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// ValidateResourceClaimTemplate checks a new claim template: its own
// metadata, the labels and annotations of the claims it makes, and their
// spec.
func ValidateResourceClaimTemplate(t *resourcev1.ResourceClaimTemplate) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&t.ObjectMeta, true, ValidateName, field.NewPath("metadata"))
	metaPath := field.NewPath("spec", "metadata")
	allErrs = append(allErrs, metav1validation.ValidateLabels(t.Spec.Labels, metaPath.Child("labels"))...)
	allErrs = append(allErrs, apimachineryvalidation.ValidateAnnotations(t.Spec.Annotations, metaPath.Child("annotations"))...)
	return append(allErrs, validateResourceClaimSpec(&t.Spec.Spec, field.NewPath("spec", "spec"))...)
}

// ValidateResourceClaimTemplateUpdate checks an update: the spec is
// immutable.
func ValidateResourceClaimTemplateUpdate(t, old *resourcev1.ResourceClaimTemplate) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&t.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(t.Spec, old.Spec, field.NewPath("spec"))...)
	return append(allErrs, ValidateResourceClaimTemplate(t)...)
}
