// Package validation checks discovery.k8s.io/v1 EndpointSlices the way
// kube-apiserver does: the same rules, field paths and messages.
package validation

import (
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// Upstream's limits.
const (
	maxTopologyLabels = 16
	maxAddresses      = 100
	maxPorts          = 20000
	maxEndpoints      = 1000
	maxZoneHints      = 8
	maxNodeHints      = 8
)

var (
	supportedAddressTypes = []discoveryv1.AddressType{discoveryv1.AddressTypeFQDN, discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6}
	supportedProtocols    = []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}
)

// ValidateEndpointSliceName is the rule for EndpointSlice names: a DNS
// subdomain.
var ValidateEndpointSliceName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateEndpointSlice checks a new EndpointSlice.
func ValidateEndpointSlice(slice *discoveryv1.EndpointSlice) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&slice.ObjectMeta, true, ValidateEndpointSliceName, field.NewPath("metadata"))
	allErrs = append(allErrs, validateAddressType(slice.AddressType)...)
	allErrs = append(allErrs, validateEndpoints(slice.Endpoints, slice.AddressType, field.NewPath("endpoints"))...)
	return append(allErrs, validatePorts(slice.Ports, field.NewPath("ports"))...)
}

// ValidateEndpointSliceUpdate checks an update: the new slice, the
// metadata changes and the immutable addressType.
func ValidateEndpointSliceUpdate(slice, old *discoveryv1.EndpointSlice) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&slice.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidateEndpointSlice(slice)...)
	return append(allErrs, apimachineryvalidation.ValidateImmutableField(slice.AddressType, old.AddressType, field.NewPath("addressType"))...)
}

func validateAddressType(t discoveryv1.AddressType) field.ErrorList {
	switch {
	case t == "":
		return field.ErrorList{field.Required(field.NewPath("addressType"), "")}
	case !slices.Contains(supportedAddressTypes, t):
		return field.ErrorList{field.NotSupported(field.NewPath("addressType"), t, supportedAddressTypes)}
	}
	return nil
}

func validateEndpoints(endpoints []discoveryv1.Endpoint, addrType discoveryv1.AddressType, fldPath *field.Path) field.ErrorList {
	if len(endpoints) > maxEndpoints {
		return field.ErrorList{field.TooMany(fldPath, len(endpoints), maxEndpoints)}
	}
	var allErrs field.ErrorList
	for i := range endpoints {
		ep := &endpoints[i]
		idxPath := fldPath.Index(i)
		addrPath := idxPath.Child("addresses")
		switch {
		case len(ep.Addresses) == 0:
			allErrs = append(allErrs, field.Required(addrPath, "must contain at least 1 address"))
		case len(ep.Addresses) > maxAddresses:
			allErrs = append(allErrs, field.TooMany(addrPath, len(ep.Addresses), maxAddresses))
		}
		for j, addr := range ep.Addresses {
			allErrs = append(allErrs, validateAddress(addr, addrType, addrPath.Index(j))...)
		}
		if ep.NodeName != nil {
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*ep.NodeName, false) {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("nodeName"), *ep.NodeName, msg))
			}
		}
		topoPath := idxPath.Child("deprecatedTopology")
		if len(ep.DeprecatedTopology) > maxTopologyLabels {
			allErrs = append(allErrs, field.TooMany(topoPath, len(ep.DeprecatedTopology), maxTopologyLabels))
		}
		allErrs = append(allErrs, metav1validation.ValidateLabels(ep.DeprecatedTopology, topoPath)...)
		if ep.Hostname != nil {
			for _, msg := range validation.IsDNS1123Label(*ep.Hostname) {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("hostname"), *ep.Hostname, msg))
			}
		}
		if ep.Hints != nil {
			allErrs = append(allErrs, validateHints(ep.Hints, idxPath.Child("hints"))...)
		}
	}
	return allErrs
}

// validateAddress checks an address against the slice's type; unknown
// types are reported once on addressType.
func validateAddress(addr string, addrType discoveryv1.AddressType, fldPath *field.Path) field.ErrorList {
	switch addrType {
	case discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6:
		if errs := validation.IsValidIPForLegacyField(fldPath, addr, false, nil); len(errs) > 0 {
			return errs
		}
		ip, err := netip.ParseAddr(addr)
		if err != nil {
			return nil
		}
		if ip.Unmap().Is4() != (addrType == discoveryv1.AddressTypeIPv4) {
			return field.ErrorList{field.Invalid(fldPath, addr, "must be a valid "+string(addrType)+" address")}
		}
		return nonSpecialIP(ip.Unmap(), addr, fldPath)
	case discoveryv1.AddressTypeFQDN:
		return validation.IsFullyQualifiedDomainName(fldPath, addr)
	}
	return nil
}

// nonSpecialIP rejects addresses no endpoint can have.
func nonSpecialIP(ip netip.Addr, addr string, fldPath *field.Path) field.ErrorList {
	switch {
	case ip.IsUnspecified():
		return field.ErrorList{field.Invalid(fldPath, addr, "may not be unspecified ("+addr+")")}
	case ip.IsLoopback():
		return field.ErrorList{field.Invalid(fldPath, addr, "may not be in the loopback range (127.0.0.0/8, ::1/128)")}
	case ip.IsLinkLocalUnicast():
		return field.ErrorList{field.Invalid(fldPath, addr, "may not be in the link-local range (169.254.0.0/16, fe80::/10)")}
	case ip.IsLinkLocalMulticast():
		return field.ErrorList{field.Invalid(fldPath, addr, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")}
	}
	return nil
}

func validateHints(hints *discoveryv1.EndpointHints, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	zonesPath := fldPath.Child("forZones")
	if len(hints.ForZones) > maxZoneHints {
		allErrs = append(allErrs, field.TooMany(zonesPath, len(hints.ForZones), maxZoneHints))
	}
	zones := sets.New[string]()
	for i, z := range hints.ForZones {
		namePath := zonesPath.Index(i).Child("name")
		if zones.Has(z.Name) {
			allErrs = append(allErrs, field.Duplicate(namePath, z.Name))
		}
		zones.Insert(z.Name)
		for _, msg := range validation.IsValidLabelValue(z.Name) {
			allErrs = append(allErrs, field.Invalid(namePath, z.Name, msg))
		}
	}
	nodesPath := fldPath.Child("forNodes")
	if len(hints.ForNodes) > maxNodeHints {
		allErrs = append(allErrs, field.TooMany(nodesPath, len(hints.ForNodes), maxNodeHints))
	}
	nodes := sets.New[string]()
	for i, n := range hints.ForNodes {
		namePath := nodesPath.Index(i).Child("name")
		if nodes.Has(n.Name) {
			allErrs = append(allErrs, field.Duplicate(namePath, n.Name))
		}
		nodes.Insert(n.Name)
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(n.Name, false) {
			allErrs = append(allErrs, field.Invalid(namePath, n.Name, msg))
		}
	}
	return allErrs
}

func validatePorts(ports []discoveryv1.EndpointPort, fldPath *field.Path) field.ErrorList {
	if len(ports) > maxPorts {
		return field.ErrorList{field.TooMany(fldPath, len(ports), maxPorts)}
	}
	var allErrs field.ErrorList
	names := sets.New[string]()
	for i, p := range ports {
		idxPath := fldPath.Index(i)
		name := ""
		if p.Name != nil {
			name = *p.Name
		}
		if name != "" {
			for _, msg := range validation.IsDNS1123Label(name) {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("name"), name, msg))
			}
		}
		if names.Has(name) {
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("name"), name))
		}
		names.Insert(name)
		switch {
		case p.Protocol == nil:
			allErrs = append(allErrs, field.Required(idxPath.Child("protocol"), ""))
		case !slices.Contains(supportedProtocols, *p.Protocol):
			allErrs = append(allErrs, field.NotSupported(idxPath.Child("protocol"), *p.Protocol, supportedProtocols))
		}
		if p.AppProtocol != nil {
			for _, msg := range validation.IsQualifiedName(*p.AppProtocol) {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("appProtocol"), *p.AppProtocol, msg))
			}
		}
	}
	return allErrs
}
