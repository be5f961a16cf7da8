package validation

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidatePodTemplate checks a new PodTemplate: metadata and template.
func ValidatePodTemplate(t *corev1.PodTemplate) field.ErrorList {
	allErrs := ValidateObjectMeta(&t.ObjectMeta, true, ValidatePodName, field.NewPath("metadata"))
	return append(allErrs, ValidatePodTemplateSpec(&t.Template, field.NewPath("template"))...)
}

// ValidatePodTemplateUpdate checks an update: the metadata changes, then
// the new template as on create. Templates are mutable.
func ValidatePodTemplateUpdate(t, old *corev1.PodTemplate) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&t.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidatePodTemplateSpec(&t.Template, field.NewPath("template"))...)
}
