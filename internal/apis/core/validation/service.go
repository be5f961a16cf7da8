package validation

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateServiceName is the rule for service names: a DNS-1035 label, as
// the name becomes a DNS name and an environment variable prefix.
var ValidateServiceName = apimachineryvalidation.NameIsDNS1035Label

var (
	supportedServiceTypes = []corev1.ServiceType{
		corev1.ServiceTypeClusterIP, corev1.ServiceTypeExternalName,
		corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort,
	}
	supportedServiceProtocols = []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}
	supportedSessionAffinity  = []corev1.ServiceAffinity{corev1.ServiceAffinityClientIP, corev1.ServiceAffinityNone}
	supportedIPFamilyPolicies = []corev1.IPFamilyPolicy{
		corev1.IPFamilyPolicyPreferDualStack, corev1.IPFamilyPolicyRequireDualStack, corev1.IPFamilyPolicySingleStack,
	}
	supportedIPFamilies     = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
	supportedExternalPolicy = []corev1.ServiceExternalTrafficPolicy{corev1.ServiceExternalTrafficPolicyCluster, corev1.ServiceExternalTrafficPolicyLocal}
	supportedInternalPolicy = []corev1.ServiceInternalTrafficPolicy{corev1.ServiceInternalTrafficPolicyCluster, corev1.ServiceInternalTrafficPolicyLocal}
	supportedTrafficDistrib = []string{corev1.ServiceTrafficDistributionPreferClose, corev1.ServiceTrafficDistributionPreferSameNode, corev1.ServiceTrafficDistributionPreferSameZone}
	onlyForLoadBalancerMsg  = "may only be used when `type` is 'LoadBalancer'"
	// maxClientIPAffinitySecs is upstream's limit: one day.
	maxClientIPAffinitySecs = int32(86400)
)

// IsHeadlessService says whether the service asked for no cluster IP.
func IsHeadlessService(svc *corev1.Service) bool {
	return svc.Spec.ClusterIP == corev1.ClusterIPNone
}

// ValidateService checks a service on create, and its new state on
// update. It expects the v1 defaults to have been applied and, for
// services the storage has allocated, clusterIP and clusterIPs in step.
func ValidateService(svc *corev1.Service) field.ErrorList {
	allErrs := ValidateObjectMeta(&svc.ObjectMeta, true, ValidateServiceName, field.NewPath("metadata"))
	spec := &svc.Spec
	specPath := field.NewPath("spec")

	if len(spec.Ports) == 0 && !IsHeadlessService(svc) && spec.Type != corev1.ServiceTypeExternalName {
		allErrs = append(allErrs, field.Required(specPath.Child("ports"), ""))
	}
	allErrs = append(allErrs, validateServiceTypeFields(svc, specPath)...)
	allErrs = append(allErrs, validateServicePorts(svc, specPath.Child("ports"))...)
	if spec.Selector != nil {
		allErrs = append(allErrs, metav1validation.ValidateLabels(spec.Selector, specPath.Child("selector"))...)
	}
	allErrs = append(allErrs, validateSessionAffinity(spec, specPath)...)
	allErrs = append(allErrs, validateClusterIPs(svc, specPath)...)
	for i, ip := range spec.ExternalIPs {
		idxPath := specPath.Child("externalIPs").Index(i)
		allErrs = append(allErrs, validation.IsValidIPForLegacyField(idxPath, ip, false, nil)...)
		allErrs = append(allErrs, validateServiceNonSpecialIP(ip, idxPath)...)
	}
	allErrs = append(allErrs, validateLoadBalancerFields(svc, specPath)...)
	allErrs = append(allErrs, validateTrafficPolicies(svc, specPath)...)
	if spec.TrafficDistribution != nil && !slices.Contains(supportedTrafficDistrib, *spec.TrafficDistribution) {
		allErrs = append(allErrs, field.NotSupported(specPath.Child("trafficDistribution"), *spec.TrafficDistribution, supportedTrafficDistrib))
	}
	return allErrs
}

// validateServiceTypeFields checks the type and what each type forbids.
func validateServiceTypeFields(svc *corev1.Service, specPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	spec := &svc.Spec
	switch spec.Type {
	case corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort:
		if IsHeadlessService(svc) {
			allErrs = append(allErrs, field.Invalid(specPath.Child("clusterIPs").Index(0), spec.ClusterIP,
				fmt.Sprintf("may not be set to 'None' for %s services", spec.Type)))
		}
	case corev1.ServiceTypeClusterIP:
		for i, p := range spec.Ports {
			if p.NodePort != 0 {
				allErrs = append(allErrs, field.Forbidden(specPath.Child("ports").Index(i).Child("nodePort"), "may not be used when `type` is 'ClusterIP'"))
			}
		}
	case corev1.ServiceTypeExternalName:
		if len(spec.ClusterIPs) > 0 || spec.ClusterIP != "" {
			allErrs = append(allErrs, field.Forbidden(specPath.Child("clusterIPs"), "may not be set for ExternalName services"))
		}
		if len(spec.IPFamilies) > 0 {
			allErrs = append(allErrs, field.Forbidden(specPath.Child("ipFamilies"), "may not be set for ExternalName services"))
		}
		if spec.IPFamilyPolicy != nil {
			allErrs = append(allErrs, field.Forbidden(specPath.Child("ipFamilyPolicy"), "may not be set for ExternalName services"))
		}
		if spec.ExternalName == "" {
			allErrs = append(allErrs, field.Required(specPath.Child("externalName"), ""))
		} else {
			// A trailing dot (a fully qualified name) is allowed.
			for _, msg := range validation.IsDNS1123Subdomain(strings.TrimSuffix(spec.ExternalName, ".")) {
				allErrs = append(allErrs, field.Invalid(specPath.Child("externalName"), spec.ExternalName, msg))
			}
		}
	case "":
		allErrs = append(allErrs, field.Required(specPath.Child("type"), ""))
	default:
		allErrs = append(allErrs, field.NotSupported(specPath.Child("type"), spec.Type, supportedServiceTypes))
	}
	return allErrs
}

// servicePortKey identifies a service port or node port: the same number may be
// used once per protocol.
type servicePortKey struct {
	port     int32
	protocol corev1.Protocol
}

func validateServicePorts(svc *corev1.Service, portsPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	names := sets.New[string]()
	ports := map[servicePortKey]bool{}
	nodePorts := map[servicePortKey]bool{}
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		portPath := portsPath.Index(i)
		allErrs = append(allErrs, validateServicePort(p, len(svc.Spec.Ports) > 1, names, portPath)...)
		key := servicePortKey{p.Port, p.Protocol}
		if ports[key] {
			allErrs = append(allErrs, field.Duplicate(portPath, fmt.Sprintf("%d/%s", p.Port, p.Protocol)))
		}
		ports[key] = true
		if p.NodePort == 0 {
			continue
		}
		for _, msg := range validation.IsValidPortNum(int(p.NodePort)) {
			allErrs = append(allErrs, field.Invalid(portPath.Child("nodePort"), p.NodePort, msg))
		}
		nodeKey := servicePortKey{p.NodePort, p.Protocol}
		if nodePorts[nodeKey] {
			allErrs = append(allErrs, field.Duplicate(portPath.Child("nodePort"), p.NodePort))
		}
		nodePorts[nodeKey] = true
	}
	return allErrs
}

func validateServicePort(p *corev1.ServicePort, requireName bool, names sets.Set[string], fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if requireName && p.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	} else if p.Name != "" {
		allErrs = append(allErrs, serviceDNS1123LabelErrs(p.Name, fldPath.Child("name"))...)
		if names.Has(p.Name) {
			allErrs = append(allErrs, field.Duplicate(fldPath.Child("name"), p.Name))
		}
		names.Insert(p.Name)
	}
	for _, msg := range validation.IsValidPortNum(int(p.Port)) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("port"), p.Port, msg))
	}
	allErrs = append(allErrs, validateServiceProtocol(p.Protocol, fldPath.Child("protocol"))...)
	allErrs = append(allErrs, validateServiceTargetPort(p.TargetPort, fldPath.Child("targetPort"))...)
	if p.AppProtocol != nil {
		allErrs = append(allErrs, serviceQualifiedNameErrs(*p.AppProtocol, fldPath.Child("appProtocol"))...)
	}
	return allErrs
}

func validateServiceProtocol(protocol corev1.Protocol, fldPath *field.Path) field.ErrorList {
	if protocol == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	if !slices.Contains(supportedServiceProtocols, protocol) {
		return field.ErrorList{field.NotSupported(fldPath, protocol, supportedServiceProtocols)}
	}
	return nil
}

func validateServiceTargetPort(port intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch port.Type {
	case intstr.Int:
		for _, msg := range validation.IsValidPortNum(port.IntValue()) {
			allErrs = append(allErrs, field.Invalid(fldPath, port.IntValue(), msg))
		}
	case intstr.String:
		for _, msg := range validation.IsValidPortName(port.StrVal) {
			allErrs = append(allErrs, field.Invalid(fldPath, port.StrVal, msg))
		}
	default:
		allErrs = append(allErrs, field.InternalError(fldPath, fmt.Errorf("unknown type: %v", port.Type)))
	}
	return allErrs
}

func serviceQualifiedNameErrs(value string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range validation.IsQualifiedName(value) {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg))
	}
	return allErrs
}

func serviceDNS1123LabelErrs(value string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(value) {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg))
	}
	return allErrs
}

func validateSessionAffinity(spec *corev1.ServiceSpec, specPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch {
	case spec.SessionAffinity == "":
		allErrs = append(allErrs, field.Required(specPath.Child("sessionAffinity"), ""))
	case !slices.Contains(supportedSessionAffinity, spec.SessionAffinity):
		allErrs = append(allErrs, field.NotSupported(specPath.Child("sessionAffinity"), spec.SessionAffinity, supportedSessionAffinity))
	}
	cfgPath := specPath.Child("sessionAffinityConfig")
	if spec.SessionAffinity != corev1.ServiceAffinityClientIP {
		if spec.SessionAffinityConfig != nil {
			allErrs = append(allErrs, field.Invalid(cfgPath, spec.SessionAffinityConfig,
				fmt.Sprintf("must not be set when session affinity is %s", spec.SessionAffinity)))
		}
		return allErrs
	}
	timeoutPath := cfgPath.Child("clientIP").Child("timeoutSeconds")
	if spec.SessionAffinityConfig == nil || spec.SessionAffinityConfig.ClientIP == nil || spec.SessionAffinityConfig.ClientIP.TimeoutSeconds == nil {
		return append(allErrs, field.Required(timeoutPath, "when session affinity type is ClientIP"))
	}
	if t := *spec.SessionAffinityConfig.ClientIP.TimeoutSeconds; t <= 0 || t > maxClientIPAffinitySecs {
		allErrs = append(allErrs, field.Invalid(timeoutPath, t, fmt.Sprintf("must be greater than 0 and less than %d", maxClientIPAffinitySecs)))
	}
	return allErrs
}

// validateClusterIPs checks clusterIP, clusterIPs and the IP family
// fields for consistency.
func validateClusterIPs(svc *corev1.Service, specPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	spec := &svc.Spec
	ipsPath := specPath.Child("clusterIPs")
	if len(spec.ClusterIPs) > 0 && spec.ClusterIP != spec.ClusterIPs[0] {
		allErrs = append(allErrs, field.Invalid(ipsPath, spec.ClusterIPs, "first value must match `clusterIP`"))
	} else if len(spec.ClusterIPs) == 0 && spec.ClusterIP != "" {
		allErrs = append(allErrs, field.Invalid(ipsPath, spec.ClusterIPs, "must be set when `clusterIP` is set"))
	}
	if len(spec.ClusterIPs) > 2 {
		allErrs = append(allErrs, field.Invalid(ipsPath, spec.ClusterIPs, "may only hold up to 2 values"))
	}
	for i, ip := range spec.ClusterIPs {
		idxPath := ipsPath.Index(i)
		if ip == corev1.ClusterIPNone {
			if i != 0 || len(spec.ClusterIPs) > 1 {
				allErrs = append(allErrs, field.Invalid(idxPath, ip, "'None' must be the first and only value"))
			}
			continue
		}
		allErrs = append(allErrs, validation.IsValidIPForLegacyField(idxPath, ip, false, nil)...)
	}
	if spec.IPFamilyPolicy != nil && !slices.Contains(supportedIPFamilyPolicies, *spec.IPFamilyPolicy) {
		allErrs = append(allErrs, field.NotSupported(specPath.Child("ipFamilyPolicy"), *spec.IPFamilyPolicy, supportedIPFamilyPolicies))
	}
	famPath := specPath.Child("ipFamilies")
	seen := map[corev1.IPFamily]bool{}
	for i, fam := range spec.IPFamilies {
		switch {
		case !slices.Contains(supportedIPFamilies, fam):
			allErrs = append(allErrs, field.NotSupported(famPath.Index(i), fam, supportedIPFamilies))
		case seen[fam]:
			allErrs = append(allErrs, field.Duplicate(famPath.Index(i), fam))
		}
		seen[fam] = true
	}
	if len(spec.IPFamilies) > 2 {
		allErrs = append(allErrs, field.Invalid(famPath, spec.IPFamilies, "may be either a single or dual stack"))
	}
	if spec.IPFamilyPolicy != nil && *spec.IPFamilyPolicy == corev1.IPFamilyPolicySingleStack && len(spec.ClusterIPs) > 1 {
		allErrs = append(allErrs, field.Invalid(ipsPath, spec.ClusterIPs, "must have only one value when `ipFamilyPolicy` is 'SingleStack'"))
	}
	// Each allocated IP must belong to the family named at its index.
	for i, ip := range spec.ClusterIPs {
		addr, err := netip.ParseAddr(ip)
		if err != nil || i >= len(spec.IPFamilies) || !slices.Contains(supportedIPFamilies, spec.IPFamilies[i]) {
			continue
		}
		if fam := serviceIPFamilyOf(addr); fam != spec.IPFamilies[i] {
			allErrs = append(allErrs, field.Invalid(ipsPath.Index(i), ip, fmt.Sprintf("expected an %s value as indicated by `ipFamilies[%d]`", spec.IPFamilies[i], i)))
		}
	}
	return allErrs
}

func serviceIPFamilyOf(addr netip.Addr) corev1.IPFamily {
	if addr.Unmap().Is4() {
		return corev1.IPv4Protocol
	}
	return corev1.IPv6Protocol
}

// validateLoadBalancerFields checks the fields only load balancers may
// set.
func validateLoadBalancerFields(svc *corev1.Service, specPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	spec := &svc.Spec
	isLB := spec.Type == corev1.ServiceTypeLoadBalancer
	allocPath := specPath.Child("allocateLoadBalancerNodePorts")
	switch {
	case isLB && spec.AllocateLoadBalancerNodePorts == nil:
		allErrs = append(allErrs, field.Required(allocPath, ""))
	case !isLB && spec.AllocateLoadBalancerNodePorts != nil:
		allErrs = append(allErrs, field.Forbidden(allocPath, onlyForLoadBalancerMsg))
	}
	if spec.LoadBalancerClass != nil {
		classPath := specPath.Child("loadBalancerClass")
		if !isLB {
			allErrs = append(allErrs, field.Forbidden(classPath, onlyForLoadBalancerMsg))
		} else {
			allErrs = append(allErrs, serviceQualifiedNameErrs(*spec.LoadBalancerClass, classPath)...)
		}
	}
	if len(spec.LoadBalancerSourceRanges) > 0 {
		rangesPath := specPath.Child("loadBalancerSourceRanges")
		if !isLB {
			allErrs = append(allErrs, field.Forbidden(rangesPath, onlyForLoadBalancerMsg))
		}
		for i, cidr := range spec.LoadBalancerSourceRanges {
			// Upstream tolerates spaces around each range.
			allErrs = append(allErrs, validation.IsValidCIDRForLegacyField(rangesPath.Index(i), strings.TrimSpace(cidr), false, nil)...)
		}
	}
	return allErrs
}

// validateTrafficPolicies checks externalTrafficPolicy,
// healthCheckNodePort and internalTrafficPolicy.
func validateTrafficPolicies(svc *corev1.Service, specPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	spec := &svc.Spec
	extPath := specPath.Child("externalTrafficPolicy")
	accessible := serviceExternallyAccessible(svc)
	switch {
	case accessible && spec.ExternalTrafficPolicy == "":
		allErrs = append(allErrs, field.Required(extPath, ""))
	case !accessible && spec.ExternalTrafficPolicy != "":
		allErrs = append(allErrs, field.Invalid(extPath, spec.ExternalTrafficPolicy, "may only be set for externally-accessible services"))
	case spec.ExternalTrafficPolicy != "" && !slices.Contains(supportedExternalPolicy, spec.ExternalTrafficPolicy):
		allErrs = append(allErrs, field.NotSupported(extPath, spec.ExternalTrafficPolicy, supportedExternalPolicy))
	}
	hcPath := specPath.Child("healthCheckNodePort")
	needsHC := spec.Type == corev1.ServiceTypeLoadBalancer && spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
	if spec.HealthCheckNodePort != 0 {
		if !needsHC {
			allErrs = append(allErrs, field.Invalid(hcPath, spec.HealthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
		} else {
			for _, msg := range validation.IsValidPortNum(int(spec.HealthCheckNodePort)) {
				allErrs = append(allErrs, field.Invalid(hcPath, spec.HealthCheckNodePort, msg))
			}
		}
	}
	intPath := specPath.Child("internalTrafficPolicy")
	switch {
	case spec.Type == corev1.ServiceTypeExternalName:
	case spec.InternalTrafficPolicy == nil:
		allErrs = append(allErrs, field.Required(intPath, ""))
	case !slices.Contains(supportedInternalPolicy, *spec.InternalTrafficPolicy):
		allErrs = append(allErrs, field.NotSupported(intPath, *spec.InternalTrafficPolicy, supportedInternalPolicy))
	}
	return allErrs
}

func serviceExternallyAccessible(svc *corev1.Service) bool {
	switch svc.Spec.Type {
	case corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer:
		return true
	case corev1.ServiceTypeClusterIP:
		return len(svc.Spec.ExternalIPs) > 0
	}
	return false
}

// validateServiceNonSpecialIP rejects addresses that cannot name an endpoint or an
// external IP: unspecified, loopback and link-local ones.
func validateServiceNonSpecialIP(ip string, fldPath *field.Path) field.ErrorList {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		// The caller reports the syntax error.
		return nil
	}
	addr = addr.Unmap()
	switch {
	case addr.IsUnspecified():
		return field.ErrorList{field.Invalid(fldPath, ip, fmt.Sprintf("may not be unspecified (%v)", ip))}
	case addr.IsLoopback():
		return field.ErrorList{field.Invalid(fldPath, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)")}
	case addr.IsLinkLocalUnicast():
		return field.ErrorList{field.Invalid(fldPath, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)")}
	case addr.IsLinkLocalMulticast():
		return field.ErrorList{field.Invalid(fldPath, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")}
	}
	return nil
}

// ValidateServiceUpdate checks an update of a service: the metadata
// changes, that allocated cluster IPs do not change (unless the service
// becomes or stops being ExternalName), and the new service as a whole.
func ValidateServiceUpdate(svc, old *corev1.Service) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&svc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateClusterIPsUnchanged(svc, old)...)
	return append(allErrs, ValidateService(svc)...)
}

func validateClusterIPsUnchanged(svc, old *corev1.Service) field.ErrorList {
	if svc.Spec.Type == corev1.ServiceTypeExternalName || old.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	if IsHeadlessService(svc) && IsHeadlessService(old) {
		return nil
	}
	var allErrs field.ErrorList
	ipsPath := field.NewPath("spec", "clusterIPs")
	switch {
	case len(svc.Spec.ClusterIPs) == 0 && len(old.Spec.ClusterIPs) > 0:
		allErrs = append(allErrs, field.Invalid(ipsPath.Index(0), svc.Spec.ClusterIPs, "primary clusterIP can not be unset"))
	default:
		for i, ip := range old.Spec.ClusterIPs {
			if i < len(svc.Spec.ClusterIPs) && svc.Spec.ClusterIPs[i] != ip {
				allErrs = append(allErrs, field.Invalid(ipsPath.Index(i), svc.Spec.ClusterIPs, "may not change once set"))
			}
		}
	}
	return allErrs
}

// ValidateServiceStatusUpdate checks a write of services/status: the
// metadata changes and the load balancer status.
func ValidateServiceStatusUpdate(svc, old *corev1.Service) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&svc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, validateLoadBalancerStatus(&svc.Status.LoadBalancer, &svc.Spec, field.NewPath("status", "loadBalancer"))...)
}

func validateLoadBalancerStatus(status *corev1.LoadBalancerStatus, spec *corev1.ServiceSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, ing := range status.Ingress {
		idxPath := fldPath.Child("ingress").Index(i)
		if ing.IP != "" {
			allErrs = append(allErrs, validation.IsValidIPForLegacyField(idxPath.Child("ip"), ing.IP, false, nil)...)
		}
		if ing.IPMode != nil {
			modePath := idxPath.Child("ipMode")
			switch {
			case ing.IP == "":
				allErrs = append(allErrs, field.Forbidden(modePath, "may not be specified when `ip` is not set"))
			case *ing.IPMode != corev1.LoadBalancerIPModeVIP && *ing.IPMode != corev1.LoadBalancerIPModeProxy:
				allErrs = append(allErrs, field.NotSupported(modePath, *ing.IPMode, []corev1.LoadBalancerIPMode{corev1.LoadBalancerIPModeProxy, corev1.LoadBalancerIPModeVIP}))
			}
		} else if ing.IP != "" && spec.Type == corev1.ServiceTypeLoadBalancer {
			allErrs = append(allErrs, field.Required(idxPath.Child("ipMode"), "must be specified when `ip` is set"))
		}
		if ing.Hostname != "" {
			for _, msg := range validation.IsDNS1123Subdomain(ing.Hostname) {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("hostname"), ing.Hostname, msg))
			}
			if _, err := netip.ParseAddr(ing.Hostname); err == nil {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("hostname"), ing.Hostname, "must be a DNS name, not an IP address"))
			}
		}
	}
	return allErrs
}
