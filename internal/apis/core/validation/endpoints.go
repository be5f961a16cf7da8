package validation

import (
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateEndpointsName is the rule for endpoints names: a DNS subdomain
// (they are named after their service, but selectorless endpoints may be
// named anything that fits).
var ValidateEndpointsName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateEndpoints checks new endpoints.
func ValidateEndpoints(ep *corev1.Endpoints) field.ErrorList {
	allErrs := ValidateObjectMeta(&ep.ObjectMeta, true, ValidateEndpointsName, field.NewPath("metadata"))
	return append(allErrs, validateEndpointSubsets(ep.Subsets, field.NewPath("subsets"))...)
}

// ValidateEndpointsUpdate checks an update of endpoints: the metadata
// changes and the new subsets.
func ValidateEndpointsUpdate(ep, old *corev1.Endpoints) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&ep.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, validateEndpointSubsets(ep.Subsets, field.NewPath("subsets"))...)
}

func validateEndpointSubsets(subsets []corev1.EndpointSubset, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i := range subsets {
		ss := &subsets[i]
		idxPath := fldPath.Index(i)
		// Ports may be empty (headless services), addresses may not.
		if len(ss.Addresses) == 0 && len(ss.NotReadyAddresses) == 0 {
			allErrs = append(allErrs, field.Required(idxPath, "must specify `addresses` or `notReadyAddresses`"))
		}
		for j := range ss.Addresses {
			allErrs = append(allErrs, validateEndpointAddress(&ss.Addresses[j], idxPath.Child("addresses").Index(j))...)
		}
		for j := range ss.NotReadyAddresses {
			allErrs = append(allErrs, validateEndpointAddress(&ss.NotReadyAddresses[j], idxPath.Child("notReadyAddresses").Index(j))...)
		}
		for j := range ss.Ports {
			allErrs = append(allErrs, validateEndpointPort(&ss.Ports[j], len(ss.Ports) > 1, idxPath.Child("ports").Index(j))...)
		}
	}
	return allErrs
}

func validateEndpointAddress(addr *corev1.EndpointAddress, fldPath *field.Path) field.ErrorList {
	allErrs := validation.IsValidIPForLegacyField(fldPath.Child("ip"), addr.IP, false, nil)
	if addr.Hostname != "" {
		allErrs = append(allErrs, serviceDNS1123LabelErrs(addr.Hostname, fldPath.Child("hostname"))...)
	}
	if addr.NodeName != nil {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*addr.NodeName, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("nodeName"), *addr.NodeName, msg))
		}
	}
	return append(allErrs, validateServiceNonSpecialIP(addr.IP, fldPath.Child("ip"))...)
}

func validateEndpointPort(port *corev1.EndpointPort, requireName bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if requireName && port.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	} else if port.Name != "" {
		allErrs = append(allErrs, serviceDNS1123LabelErrs(port.Name, fldPath.Child("name"))...)
	}
	for _, msg := range validation.IsValidPortNum(int(port.Port)) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("port"), port.Port, msg))
	}
	allErrs = append(allErrs, validateServiceProtocol(port.Protocol, fldPath.Child("protocol"))...)
	if port.AppProtocol != nil {
		allErrs = append(allErrs, serviceQualifiedNameErrs(*port.AppProtocol, fldPath.Child("appProtocol"))...)
	}
	return allErrs
}
