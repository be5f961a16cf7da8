package validation

import (
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateServiceAccountName is the name rule of service accounts: a DNS
// subdomain.
func ValidateServiceAccountName(name string, prefix bool) []string {
	return apimachineryvalidation.ValidateServiceAccountName(name, prefix)
}

// ValidateServiceAccount validates a service account on create; only its
// metadata has rules.
func ValidateServiceAccount(sa *corev1.ServiceAccount) field.ErrorList {
	return ValidateObjectMeta(&sa.ObjectMeta, true, ValidateServiceAccountName, field.NewPath("metadata"))
}

// ValidateServiceAccountUpdate validates an update.
func ValidateServiceAccountUpdate(sa, old *corev1.ServiceAccount) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&sa.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateServiceAccount(sa)...)
}
