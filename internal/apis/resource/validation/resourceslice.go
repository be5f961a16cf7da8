package validation

import (
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// nodeSelectionFields names the ways a slice says where its devices are.
const nodeSelectionFields = "`nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection`"

// ValidateResourceSlice checks a new slice.
func ValidateResourceSlice(s *resourcev1.ResourceSlice) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&s.ObjectMeta, false, ValidateName, field.NewPath("metadata"))
	return append(allErrs, validateResourceSliceSpec(&s.Spec, field.NewPath("spec"))...)
}

// ValidateResourceSliceUpdate checks an update: driver and node are fixed.
func ValidateResourceSliceUpdate(s, old *resourcev1.ResourceSlice) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&s.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidateResourceSlice(s)...)
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(s.Spec.NodeName, old.Spec.NodeName, field.NewPath("spec", "nodeName"))...)
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(s.Spec.Driver, old.Spec.Driver, field.NewPath("spec", "driver"))...)
	return allErrs
}

func validateResourceSliceSpec(spec *resourcev1.ResourceSliceSpec, fldPath *field.Path) field.ErrorList {
	allErrs := validateDriverName(spec.Driver, fldPath.Child("driver"))
	allErrs = append(allErrs, validateResourcePool(spec.Pool, fldPath.Child("pool"))...)

	set := 0
	if spec.NodeName != nil {
		set++
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*spec.NodeName, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("nodeName"), *spec.NodeName, msg))
		}
	}
	if spec.NodeSelector != nil {
		set++
		if len(spec.NodeSelector.NodeSelectorTerms) == 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("nodeSelector", "nodeSelectorTerms"), "must have at least one node selector term"))
		}
	}
	if spec.AllNodes != nil && *spec.AllNodes {
		set++
	}
	if spec.PerDeviceNodeSelection != nil && *spec.PerDeviceNodeSelection {
		set++
	}
	switch {
	case set == 0:
		allErrs = append(allErrs, field.Required(fldPath, "exactly one of "+nodeSelectionFields+" is required"))
	case set > 1:
		allErrs = append(allErrs, field.Invalid(fldPath, "{"+nodeSelectionFields+"}", "exactly one of "+nodeSelectionFields+" is required, but multiple fields are set"))
	}

	devicesPath := fldPath.Child("devices")
	if n := len(spec.Devices); n > resourcev1.ResourceSliceMaxDevices {
		allErrs = append(allErrs, field.TooMany(devicesPath, n, resourcev1.ResourceSliceMaxDevices))
	}
	names := sets.New[string]()
	for i, d := range spec.Devices {
		path := devicesPath.Index(i)
		allErrs = append(allErrs, validateDNSLabel(d.Name, path.Child("name"))...)
		if names.Has(d.Name) {
			allErrs = append(allErrs, field.Duplicate(path.Child("name"), d.Name))
		}
		names.Insert(d.Name)
	}
	return allErrs
}

func validateResourcePool(pool resourcev1.ResourcePool, fldPath *field.Path) field.ErrorList {
	allErrs := validatePoolName(pool.Name, fldPath.Child("name"))
	if pool.ResourceSliceCount <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("resourceSliceCount"), pool.ResourceSliceCount, "must be greater than zero"))
	}
	if pool.Generation < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("generation"), pool.Generation, "must be greater than or equal to zero"))
	}
	return allErrs
}

// validatePoolName checks a pool name: one or more DNS subdomains
// separated by slashes, at most 253 characters in all.
func validatePoolName(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var allErrs field.ErrorList
	if len(name) > resourcev1.PoolNameMaxLength {
		allErrs = append(allErrs, field.TooLong(fldPath, "" /* unused */, resourcev1.PoolNameMaxLength))
	}
	for _, part := range strings.Split(name, "/") {
		allErrs = append(allErrs, validateDNSSubdomain(part, fldPath)...)
	}
	return allErrs
}
