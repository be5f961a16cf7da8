package validation

import (
	"fmt"

	resourcev1 "k8s.io/api/resource/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

var supportedAllocationModes = []resourcev1.DeviceAllocationMode{resourcev1.DeviceAllocationModeAll, resourcev1.DeviceAllocationModeExactCount}

// ValidateResourceClaim checks a new claim.
func ValidateResourceClaim(claim *resourcev1.ResourceClaim) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&claim.ObjectMeta, true, ValidateName, field.NewPath("metadata"))
	return append(allErrs, validateResourceClaimSpec(&claim.Spec, field.NewPath("spec"))...)
}

// ValidateResourceClaimUpdate checks an update: the spec is immutable.
func ValidateResourceClaimUpdate(claim, old *resourcev1.ResourceClaim) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&claim.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(claim.Spec, old.Spec, field.NewPath("spec"))...)
	return append(allErrs, ValidateResourceClaim(claim)...)
}

// ValidateResourceClaimStatusUpdate checks a write of resourceclaims/status.
func ValidateResourceClaimStatusUpdate(claim, old *resourcev1.ResourceClaim) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&claim.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, validateResourceClaimStatus(&claim.Status, &old.Status, claim, field.NewPath("status"))...)
}

func validateResourceClaimSpec(spec *resourcev1.ResourceClaimSpec, fldPath *field.Path) field.ErrorList {
	devicesPath := fldPath.Child("devices")
	requests := spec.Devices.Requests
	var allErrs field.ErrorList
	if len(requests) > resourcev1.DeviceRequestsMaxSize {
		allErrs = append(allErrs, field.TooMany(devicesPath.Child("requests"), len(requests), resourcev1.DeviceRequestsMaxSize))
	}
	known := sets.New[string]()
	for i, r := range requests {
		path := devicesPath.Child("requests").Index(i)
		allErrs = append(allErrs, validateDeviceRequest(r, path)...)
		if known.Has(r.Name) {
			allErrs = append(allErrs, field.Duplicate(path.Child("name"), r.Name))
		}
		known.Insert(r.Name)
		for _, sub := range r.FirstAvailable {
			known.Insert(r.Name + "/" + sub.Name)
		}
	}
	if n := len(spec.Devices.Constraints); n > resourcev1.DeviceConstraintsMaxSize {
		allErrs = append(allErrs, field.TooMany(devicesPath.Child("constraints"), n, resourcev1.DeviceConstraintsMaxSize))
	}
	for i, c := range spec.Devices.Constraints {
		path := devicesPath.Child("constraints").Index(i)
		allErrs = append(allErrs, validateRequestRefs(c.Requests, known, path.Child("requests"))...)
		if c.MatchAttribute == nil && c.DistinctAttribute == nil {
			allErrs = append(allErrs, field.Required(path, "exactly one of `matchAttribute` or `distinctAttribute` is required"))
		}
	}
	if n := len(spec.Devices.Config); n > resourcev1.DeviceConfigMaxSize {
		allErrs = append(allErrs, field.TooMany(devicesPath.Child("config"), n, resourcev1.DeviceConfigMaxSize))
	}
	for i, c := range spec.Devices.Config {
		path := devicesPath.Child("config").Index(i)
		allErrs = append(allErrs, validateRequestRefs(c.Requests, known, path.Child("requests"))...)
		allErrs = append(allErrs, validateDeviceConfiguration(c.DeviceConfiguration, path)...)
	}
	return allErrs
}

func validateDeviceRequest(r resourcev1.DeviceRequest, fldPath *field.Path) field.ErrorList {
	allErrs := validateDNSLabel(r.Name, fldPath.Child("name"))
	hasExactly, hasFirstAvailable := r.Exactly != nil, len(r.FirstAvailable) > 0
	switch {
	case !hasExactly && !hasFirstAvailable:
		allErrs = append(allErrs, field.Required(fldPath, "exactly one of `exactly` or `firstAvailable` is required"))
	case hasExactly && hasFirstAvailable:
		allErrs = append(allErrs, field.Invalid(fldPath, nil, "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"))
	case hasExactly:
		e := r.Exactly
		path := fldPath.Child("exactly")
		allErrs = append(allErrs, validateDNSSubdomain(e.DeviceClassName, path.Child("deviceClassName"))...)
		allErrs = append(allErrs, validateSelectors(e.Selectors, path.Child("selectors"))...)
		allErrs = append(allErrs, validateAllocationMode(e.AllocationMode, e.Count, path)...)
	default:
		path := fldPath.Child("firstAvailable")
		if n := len(r.FirstAvailable); n > resourcev1.FirstAvailableDeviceRequestMaxSize {
			allErrs = append(allErrs, field.TooMany(path, n, resourcev1.FirstAvailableDeviceRequestMaxSize))
		}
		names := sets.New[string]()
		for i, sub := range r.FirstAvailable {
			subPath := path.Index(i)
			allErrs = append(allErrs, validateDNSLabel(sub.Name, subPath.Child("name"))...)
			if names.Has(sub.Name) {
				allErrs = append(allErrs, field.Duplicate(subPath.Child("name"), sub.Name))
			}
			names.Insert(sub.Name)
			allErrs = append(allErrs, validateDNSSubdomain(sub.DeviceClassName, subPath.Child("deviceClassName"))...)
			allErrs = append(allErrs, validateSelectors(sub.Selectors, subPath.Child("selectors"))...)
			allErrs = append(allErrs, validateAllocationMode(sub.AllocationMode, sub.Count, subPath)...)
		}
	}
	return allErrs
}

// validateAllocationMode: ExactCount needs a positive count, All none.
func validateAllocationMode(mode resourcev1.DeviceAllocationMode, count int64, fldPath *field.Path) field.ErrorList {
	switch mode {
	case resourcev1.DeviceAllocationModeAll:
		if count != 0 {
			return field.ErrorList{field.Invalid(fldPath.Child("count"), count, fmt.Sprintf("must not be specified when allocationMode is '%s'", mode))}
		}
	case resourcev1.DeviceAllocationModeExactCount:
		if count <= 0 {
			return field.ErrorList{field.Invalid(fldPath.Child("count"), count, "must be greater than zero")}
		}
	default:
		return field.ErrorList{field.NotSupported(fldPath.Child("allocationMode"), mode, supportedAllocationModes)}
	}
	return nil
}

func validateResourceClaimStatus(status, old *resourcev1.ResourceClaimStatus, claim *resourcev1.ResourceClaim, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	reservedPath := fldPath.Child("reservedFor")
	if n := len(status.ReservedFor); n > resourcev1.ResourceClaimReservedForMaxSize {
		allErrs = append(allErrs, field.TooMany(reservedPath, n, resourcev1.ResourceClaimReservedForMaxSize))
	}
	uids := sets.New[string]()
	for i, ref := range status.ReservedFor {
		path := reservedPath.Index(i)
		if ref.Resource == "" {
			allErrs = append(allErrs, field.Required(path.Child("resource"), ""))
		}
		if ref.Name == "" {
			allErrs = append(allErrs, field.Required(path.Child("name"), ""))
		}
		if ref.UID == "" {
			allErrs = append(allErrs, field.Required(path.Child("uid"), ""))
		}
		if uids.Has(string(ref.UID)) {
			allErrs = append(allErrs, field.Duplicate(path, ref))
		}
		uids.Insert(string(ref.UID))
	}
	if len(status.ReservedFor) > 0 && status.Allocation == nil {
		allErrs = append(allErrs, field.Forbidden(reservedPath, "may not be specified when `allocated` is not set"))
	}
	if old.Allocation != nil && status.Allocation != nil {
		allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(status.Allocation, old.Allocation, fldPath.Child("allocation"))...)
	}
	if status.Allocation != nil && (old.Allocation == nil || len(claim.Status.ReservedFor) == 0) {
		allErrs = append(allErrs, validateAllocationResult(status.Allocation, claim, fldPath.Child("allocation"))...)
	}
	return allErrs
}

// validateAllocationResult checks that each result names a request of the
// claim and a device by driver, pool and name.
func validateAllocationResult(a *resourcev1.AllocationResult, claim *resourcev1.ResourceClaim, fldPath *field.Path) field.ErrorList {
	requests := sets.New[string]()
	for _, r := range claim.Spec.Devices.Requests {
		requests.Insert(r.Name)
		for _, sub := range r.FirstAvailable {
			requests.Insert(r.Name + "/" + sub.Name)
		}
	}
	var allErrs field.ErrorList
	resultsPath := fldPath.Child("devices", "results")
	if n := len(a.Devices.Results); n > resourcev1.AllocationResultsMaxSize {
		allErrs = append(allErrs, field.TooMany(resultsPath, n, resourcev1.AllocationResultsMaxSize))
	}
	for i, r := range a.Devices.Results {
		path := resultsPath.Index(i)
		if !requests.Has(r.Request) {
			allErrs = append(allErrs, field.Invalid(path.Child("request"), r.Request, "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"))
		}
		allErrs = append(allErrs, validateDriverName(r.Driver, path.Child("driver"))...)
		allErrs = append(allErrs, validatePoolName(r.Pool, path.Child("pool"))...)
		allErrs = append(allErrs, validateDNSLabel(r.Device, path.Child("device"))...)
	}
	return allErrs
}
