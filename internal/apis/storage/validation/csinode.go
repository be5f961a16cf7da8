package validation

import (
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// csiNodeIDMaxLength is the longest node ID a CSI driver may report.
const csiNodeIDMaxLength = 192

// ValidateCSINode checks a CSINode; its name is a node name.
func ValidateCSINode(n *storagev1.CSINode) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&n.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	driversPath := field.NewPath("spec", "drivers")
	names := sets.New[string]()
	for i, d := range n.Spec.Drivers {
		allErrs = append(allErrs, validateCSINodeDriver(d, names, driversPath.Index(i))...)
	}
	return allErrs
}

// ValidateCSINodeUpdate checks an update: a registered driver's entry
// cannot change, only be added or removed.
func ValidateCSINodeUpdate(n, old *storagev1.CSINode) field.ErrorList {
	allErrs := ValidateCSINode(n)
	allErrs = append(allErrs, corevalidation.ValidateObjectMetaUpdate(&n.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	for _, oldDriver := range old.Spec.Drivers {
		for _, d := range n.Spec.Drivers {
			if d.Name == oldDriver.Name && !equality.Semantic.DeepEqual(oldDriver, d) {
				allErrs = append(allErrs, field.Invalid(field.NewPath("CSINodeDriver"), d, "field is immutable"))
			}
		}
	}
	return allErrs
}

func validateCSINodeDriver(d storagev1.CSINodeDriver, names sets.Set[string], fldPath *field.Path) field.ErrorList {
	allErrs := ValidateCSIDriverName(d.Name, fldPath.Child("name"))
	switch {
	case d.NodeID == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("nodeID"), d.NodeID))
	case len(d.NodeID) > csiNodeIDMaxLength:
		allErrs = append(allErrs, field.TooLong(fldPath.Child("nodeID"), d.NodeID, csiNodeIDMaxLength))
	}
	if d.Allocatable != nil && d.Allocatable.Count != nil {
		allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(int64(*d.Allocatable.Count), fldPath.Child("allocatable", "count"))...)
	}
	if names.Has(d.Name) {
		allErrs = append(allErrs, field.Duplicate(fldPath.Child("name"), d.Name))
	}
	names.Insert(d.Name)
	keys := sets.New[string]()
	for _, key := range d.TopologyKeys {
		if key == "" {
			allErrs = append(allErrs, field.Required(fldPath, key))
		}
		if keys.Has(key) {
			allErrs = append(allErrs, field.Duplicate(fldPath, key))
		}
		keys.Insert(key)
		allErrs = append(allErrs, validateQualifiedName(key, fldPath)...)
	}
	return allErrs
}

func validateQualifiedName(value string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range validation.IsQualifiedName(value) {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg))
	}
	return allErrs
}
