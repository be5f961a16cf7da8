package validation

import (
	"net/netip"

	networkingv1 "k8s.io/api/networking/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// ValidateServiceCIDRName is the rule for ServiceCIDR names: a DNS
// subdomain.
var ValidateServiceCIDRName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateServiceCIDR checks a new ServiceCIDR.
func ValidateServiceCIDR(cidr *networkingv1.ServiceCIDR) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&cidr.ObjectMeta, false, ValidateServiceCIDRName, field.NewPath("metadata"))
	return append(allErrs, validateServiceCIDRSpec(&cidr.Spec, field.NewPath("spec", "cidrs"))...)
}

func validateServiceCIDRSpec(spec *networkingv1.ServiceCIDRSpec, fldPath *field.Path) field.ErrorList {
	switch {
	case len(spec.CIDRs) == 0:
		return field.ErrorList{field.Required(fldPath, "at least one CIDR required")}
	case len(spec.CIDRs) > 2:
		return field.ErrorList{field.Invalid(fldPath, spec, "may only hold up to 2 values")}
	}
	var allErrs field.ErrorList
	for i, cidr := range spec.CIDRs {
		allErrs = append(allErrs, validation.IsValidCIDR(fldPath.Index(i), cidr)...)
	}
	if len(spec.CIDRs) == 2 {
		a, errA := netip.ParsePrefix(spec.CIDRs[0])
		b, errB := netip.ParsePrefix(spec.CIDRs[1])
		if errA == nil && errB == nil && a.Addr().Is4() == b.Addr().Is4() {
			allErrs = append(allErrs, field.Invalid(fldPath, spec.CIDRs, "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64"))
		}
	}
	return allErrs
}

// ValidateServiceCIDRUpdate checks an update: existing CIDRs are
// immutable; a single-stack ServiceCIDR may gain a second family.
func ValidateServiceCIDRUpdate(cidr, old *networkingv1.ServiceCIDR) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&cidr.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	cidrsPath := field.NewPath("spec", "cidrs")
	switch {
	case len(old.Spec.CIDRs) == len(cidr.Spec.CIDRs):
		for i, c := range old.Spec.CIDRs {
			if c != cidr.Spec.CIDRs[i] {
				allErrs = append(allErrs, field.Invalid(cidrsPath.Index(i), cidr.Spec.CIDRs[i], apimachineryvalidation.FieldImmutableErrorMsg))
			}
		}
	case len(old.Spec.CIDRs) == 1 && len(cidr.Spec.CIDRs) == 2:
		if old.Spec.CIDRs[0] != cidr.Spec.CIDRs[0] {
			allErrs = append(allErrs, field.Invalid(cidrsPath.Index(0), cidr.Spec.CIDRs[0], apimachineryvalidation.FieldImmutableErrorMsg))
		}
		allErrs = append(allErrs, validateServiceCIDRSpec(&cidr.Spec, cidrsPath)...)
	default:
		allErrs = append(allErrs, field.Invalid(cidrsPath, cidr.Spec.CIDRs, apimachineryvalidation.FieldImmutableErrorMsg))
	}
	return allErrs
}

// ValidateServiceCIDRStatusUpdate checks a status write: only the
// metadata changes, as upstream (conditions are not checked).
func ValidateServiceCIDRStatusUpdate(cidr, old *networkingv1.ServiceCIDR) field.ErrorList {
	return corevalidation.ValidateObjectMetaUpdate(&cidr.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
}
