package validation

import (
	"strings"

	storagev1 "k8s.io/api/storage/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// csiDriverNameMaxLength is the longest CSI driver name.
const csiDriverNameMaxLength = 63

var (
	supportedFSGroupPolicies = sets.New(string(storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy), string(storagev1.FileFSGroupPolicy), string(storagev1.NoneFSGroupPolicy))
	supportedLifecycleModes  = sets.New(string(storagev1.VolumeLifecyclePersistent), string(storagev1.VolumeLifecycleEphemeral))
)

// ValidateCSIDriverName checks a CSI driver name: required, at most 63
// characters and a DNS subdomain ignoring case.
func ValidateCSIDriverName(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var allErrs field.ErrorList
	if len(name) > csiDriverNameMaxLength {
		allErrs = append(allErrs, field.TooLong(fldPath, name, csiDriverNameMaxLength))
	}
	for _, msg := range validation.IsDNS1123Subdomain(strings.ToLower(name)) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, msg))
	}
	return allErrs
}

// ValidateCSIDriver checks a new CSI driver; its name is a driver name.
func ValidateCSIDriver(d *storagev1.CSIDriver) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&d.ObjectMeta, false, noNameRule, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidateCSIDriverName(d.Name, field.NewPath("name"))...)
	return append(allErrs, validateCSIDriverSpec(&d.Spec, field.NewPath("spec"))...)
}

// ValidateCSIDriverUpdate checks an update: attachRequired and
// volumeLifecycleModes are immutable.
func ValidateCSIDriverUpdate(d, old *storagev1.CSIDriver) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&d.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateCSIDriverSpec(&d.Spec, field.NewPath("spec"))...)
	// Upstream's path has this spelling.
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(d.Spec.AttachRequired, old.Spec.AttachRequired, field.NewPath("spec", "attachedRequired"))...)
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(d.Spec.VolumeLifecycleModes, old.Spec.VolumeLifecycleModes, field.NewPath("spec", "volumeLifecycleModes"))...)
	return allErrs
}

// noNameRule accepts any name: the caller checks it with its own rule
// and field path.
func noNameRule(string, bool) []string { return nil }

func validateCSIDriverSpec(spec *storagev1.CSIDriverSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	required := []struct {
		set  bool
		name string
	}{
		{spec.AttachRequired != nil, "attachRequired"},
		{spec.PodInfoOnMount != nil, "podInfoOnMount"},
		{spec.StorageCapacity != nil, "storageCapacity"},
		{spec.SELinuxMount != nil, "seLinuxMount"},
	}
	for _, r := range required {
		if !r.set {
			allErrs = append(allErrs, field.Required(fldPath.Child(r.name), ""))
		}
	}
	if p := spec.FSGroupPolicy; p != nil && !supportedFSGroupPolicies.Has(string(*p)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("fsGroupPolicy"), *p, sets.List(supportedFSGroupPolicies)))
	}
	allErrs = append(allErrs, validateTokenRequests(spec.TokenRequests, fldPath.Child("tokenRequests"))...)
	for i, mode := range spec.VolumeLifecycleModes {
		if !supportedLifecycleModes.Has(string(mode)) {
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("volumeLifecycleModes").Index(i), mode, sets.List(supportedLifecycleModes)))
		}
	}
	if p := spec.NodeAllocatableUpdatePeriodSeconds; p != nil && *p < 10 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("nodeAllocatableUpdatePeriodSeconds"), *p, "must be greater than or equal to 10 seconds"))
	}
	return allErrs
}

// validateTokenRequests rejects repeated audiences and token lifetimes
// outside [10 minutes, 2^32 seconds].
func validateTokenRequests(requests []storagev1.TokenRequest, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[string]()
	for i, r := range requests {
		path := fldPath.Index(i)
		if seen.Has(r.Audience) {
			allErrs = append(allErrs, field.Duplicate(path.Child("audience"), r.Audience))
		}
		seen.Insert(r.Audience)
		if r.ExpirationSeconds == nil {
			continue
		}
		switch {
		case *r.ExpirationSeconds < 600:
			allErrs = append(allErrs, field.Invalid(path.Child("expirationSeconds"), *r.ExpirationSeconds, "may not specify a duration less than 10 minutes"))
		case *r.ExpirationSeconds > 1<<32:
			allErrs = append(allErrs, field.Invalid(path.Child("expirationSeconds"), *r.ExpirationSeconds, "may not specify a duration larger than 2^32 seconds"))
		}
	}
	return allErrs
}
