package validation

import (
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// ValidateCSIStorageCapacity checks a new CSIStorageCapacity.
func ValidateCSIStorageCapacity(c *storagev1.CSIStorageCapacity) field.ErrorList {
	return validateCSIStorageCapacity(c, false)
}

// ValidateCSIStorageCapacityUpdate checks an update: the inputs of the CSI
// GetCapacity call, nodeTopology and storageClassName, are immutable. A
// selector value that was already invalid stays accepted.
func ValidateCSIStorageCapacityUpdate(c, old *storagev1.CSIStorageCapacity) field.ErrorList {
	tolerant := len(metav1validation.ValidateLabelSelector(old.NodeTopology, metav1validation.LabelSelectorValidationOptions{}, nil)) > 0
	allErrs := validateCSIStorageCapacity(c, tolerant)
	allErrs = append(allErrs, corevalidation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(c.NodeTopology, old.NodeTopology, field.NewPath("nodeTopology"))...)
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(c.StorageClassName, old.StorageClassName, field.NewPath("storageClassName"))...)
	return allErrs
}

func validateCSIStorageCapacity(c *storagev1.CSIStorageCapacity, allowInvalidLabelValue bool) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&c.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	opts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: allowInvalidLabelValue}
	allErrs = append(allErrs, metav1validation.ValidateLabelSelector(c.NodeTopology, opts, field.NewPath("nodeTopology"))...)
	for _, msg := range ValidateClassName(c.StorageClassName, false) {
		allErrs = append(allErrs, field.Invalid(field.NewPath("storageClassName"), c.StorageClassName, msg))
	}
	allErrs = append(allErrs, validateNonnegativeQuantity(c.Capacity, field.NewPath("capacity"))...)
	allErrs = append(allErrs, validateNonnegativeQuantity(c.MaximumVolumeSize, field.NewPath("maximumVolumeSize"))...)
	return allErrs
}

func validateNonnegativeQuantity(q *resource.Quantity, fldPath *field.Path) field.ErrorList {
	if q != nil && q.Sign() < 0 {
		return field.ErrorList{field.Invalid(fldPath, q.String(), "must be greater than or equal to 0")}
	}
	return nil
}
