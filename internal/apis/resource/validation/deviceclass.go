package validation

import (
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// ValidateDeviceClass checks a device class on create and update.
func ValidateDeviceClass(dc *resourcev1.DeviceClass) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&dc.ObjectMeta, false, ValidateName, field.NewPath("metadata"))
	specPath := field.NewPath("spec")
	allErrs = append(allErrs, validateSelectors(dc.Spec.Selectors, specPath.Child("selectors"))...)
	configPath := specPath.Child("config")
	if len(dc.Spec.Config) > resourcev1.DeviceConfigMaxSize {
		allErrs = append(allErrs, field.TooMany(configPath, len(dc.Spec.Config), resourcev1.DeviceConfigMaxSize))
	}
	for i, c := range dc.Spec.Config {
		allErrs = append(allErrs, validateDeviceConfiguration(c.DeviceConfiguration, configPath.Index(i))...)
	}
	if name := dc.Spec.ExtendedResourceName; name != nil {
		for _, msg := range validation.IsQualifiedName(*name) {
			allErrs = append(allErrs, field.Invalid(specPath.Child("extendedResourceName"), *name, msg))
		}
	}
	return allErrs
}

// ValidateDeviceClassUpdate checks an update: the class as on create and
// the metadata changes.
func ValidateDeviceClassUpdate(dc, old *resourcev1.DeviceClass) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&dc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateDeviceClass(dc)...)
}
