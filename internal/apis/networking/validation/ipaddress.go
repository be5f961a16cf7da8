// Package validation checks networking.k8s.io/v1 objects the way
// kube-apiserver does: the same rules, field paths and messages, written
// against the k8s.io/api types.
package validation

import (
	"net/netip"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// ValidateIPAddressName accepts only an IP address in its canonical form,
// so that one address has one object.
func ValidateIPAddressName(name string, _ bool) []string {
	ip, err := netip.ParseAddr(name)
	if err != nil {
		return []string{err.Error()}
	}
	if ip.String() != name {
		return []string{"must be a canonical format IP address"}
	}
	return nil
}

// ValidateIPAddress checks a new IPAddress: its name and its parentRef.
func ValidateIPAddress(ip *networkingv1.IPAddress) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&ip.ObjectMeta, false, ValidateIPAddressName, field.NewPath("metadata"))
	return append(allErrs, validateParentReference(ip.Spec.ParentRef, field.NewPath("spec"))...)
}

func validateParentReference(ref *networkingv1.ParentReference, specPath *field.Path) field.ErrorList {
	if ref == nil {
		return field.ErrorList{field.Required(specPath.Child("parentRef"), "")}
	}
	var allErrs field.ErrorList
	fldPath := specPath.Child("parentRef")
	// The core group of services is "", so group cannot be required.
	if ref.Group != "" {
		for _, msg := range validation.IsDNS1123Subdomain(ref.Group) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("group"), ref.Group, msg))
		}
	}
	allErrs = append(allErrs, pathSegment(ref.Resource, true, fldPath.Child("resource"))...)
	allErrs = append(allErrs, pathSegment(ref.Namespace, false, fldPath.Child("namespace"))...)
	allErrs = append(allErrs, pathSegment(ref.Name, true, fldPath.Child("name"))...)
	return allErrs
}

// pathSegment checks a parentRef part that becomes a URL path segment.
func pathSegment(value string, required bool, fldPath *field.Path) field.ErrorList {
	if value == "" {
		if required {
			return field.ErrorList{field.Required(fldPath, "")}
		}
		return nil
	}
	var allErrs field.ErrorList
	for _, msg := range content.IsPathSegmentName(value) {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg))
	}
	return allErrs
}

// ValidateIPAddressUpdate checks an update: the metadata changes and an
// unchanged parentRef.
func ValidateIPAddressUpdate(ip, old *networkingv1.IPAddress) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&ip.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, apimachineryvalidation.ValidateImmutableField(ip.Spec.ParentRef, old.Spec.ParentRef, field.NewPath("spec", "parentRef"))...)
}
