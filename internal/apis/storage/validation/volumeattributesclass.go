package validation

import (
	"reflect"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// ValidateVolumeAttributesClass checks a new class: a driver and at least
// one parameter.
func ValidateVolumeAttributesClass(vac *storagev1.VolumeAttributesClass) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&vac.ObjectMeta, false, ValidateClassName, field.NewPath("metadata"))
	allErrs = append(allErrs, validateProvisioner(vac.DriverName, field.NewPath("driverName"))...)
	allErrs = append(allErrs, validateParameters(vac.Parameters, false, field.NewPath("parameters"))...)
	return allErrs
}

// ValidateVolumeAttributesClassUpdate checks an update: driverName and
// parameters are fixed.
func ValidateVolumeAttributesClassUpdate(vac, old *storagev1.VolumeAttributesClass) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&vac.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	if vac.DriverName != old.DriverName {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("driverName"), "updates to driverName are forbidden."))
	}
	if !reflect.DeepEqual(old.Parameters, vac.Parameters) {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("parameters"), "updates to parameters are forbidden."))
	}
	return allErrs
}
