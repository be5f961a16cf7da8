package validation

import (
	"net"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

var (
	supportedPolicyProtocols = []corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP}
	supportedPolicyTypes     = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}
)

// ValidateNetworkPolicyName is the name rule of network policies.
var ValidateNetworkPolicyName = apimachineryvalidation.NameIsDNSSubdomain

// networkPolicyOptions tolerate, on update, selector values and CIDRs the
// stored policy already had.
type networkPolicyOptions struct {
	allowInvalidLabelValueInSelector bool
	legacyCIDRs                      []string
}

// ValidateNetworkPolicy checks a new network policy.
func ValidateNetworkPolicy(np *networkingv1.NetworkPolicy) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&np.ObjectMeta, true, ValidateNetworkPolicyName, field.NewPath("metadata"))
	return append(allErrs, validateNetworkPolicySpec(&np.Spec, field.NewPath("spec"), networkPolicyOptions{})...)
}

// ValidateNetworkPolicyUpdate checks an update.
func ValidateNetworkPolicyUpdate(np, old *networkingv1.NetworkPolicy) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&np.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	opts := networkPolicyOptions{
		allowInvalidLabelValueInSelector: len(validateNetworkPolicySpec(&old.Spec, field.NewPath("spec"), networkPolicyOptions{})) > 0,
		legacyCIDRs:                      cidrsOf(&old.Spec),
	}
	return append(allErrs, validateNetworkPolicySpec(&np.Spec, field.NewPath("spec"), opts)...)
}

func validateNetworkPolicySpec(spec *networkingv1.NetworkPolicySpec, fldPath *field.Path, opts networkPolicyOptions) field.ErrorList {
	selOpts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector}
	allErrs := metav1validation.ValidateLabelSelector(&spec.PodSelector, selOpts, fldPath.Child("podSelector"))
	for i, rule := range spec.Ingress {
		rulePath := fldPath.Child("ingress").Index(i)
		for j := range rule.Ports {
			allErrs = append(allErrs, validateNetworkPolicyPort(&rule.Ports[j], rulePath.Child("ports").Index(j))...)
		}
		for j := range rule.From {
			allErrs = append(allErrs, validateNetworkPolicyPeer(&rule.From[j], selOpts, opts, rulePath.Child("from").Index(j))...)
		}
	}
	for i, rule := range spec.Egress {
		rulePath := fldPath.Child("egress").Index(i)
		for j := range rule.Ports {
			allErrs = append(allErrs, validateNetworkPolicyPort(&rule.Ports[j], rulePath.Child("ports").Index(j))...)
		}
		for j := range rule.To {
			allErrs = append(allErrs, validateNetworkPolicyPeer(&rule.To[j], selOpts, opts, rulePath.Child("to").Index(j))...)
		}
	}
	typesPath := fldPath.Child("policyTypes")
	if len(spec.PolicyTypes) > len(supportedPolicyTypes) {
		return append(allErrs, field.Invalid(typesPath, &spec.PolicyTypes, "may not specify more than two policyTypes"))
	}
	for i, t := range spec.PolicyTypes {
		if t != networkingv1.PolicyTypeIngress && t != networkingv1.PolicyTypeEgress {
			allErrs = append(allErrs, field.NotSupported(typesPath.Index(i), t, supportedPolicyTypes))
		}
	}
	return allErrs
}

func validateNetworkPolicyPort(port *networkingv1.NetworkPolicyPort, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if p := port.Protocol; p != nil && *p != corev1.ProtocolTCP && *p != corev1.ProtocolUDP && *p != corev1.ProtocolSCTP {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("protocol"), *p, supportedPolicyProtocols))
	}
	endPath := fldPath.Child("endPort")
	switch {
	case port.Port == nil:
		if port.EndPort != nil {
			allErrs = append(allErrs, field.Invalid(endPath, *port.EndPort, "may not be specified when `port` is not specified"))
		}
	case port.Port.Type == intstr.Int:
		for _, msg := range validation.IsValidPortNum(int(port.Port.IntVal)) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("port"), port.Port.IntVal, msg))
		}
		if port.EndPort != nil {
			if *port.EndPort < port.Port.IntVal {
				allErrs = append(allErrs, field.Invalid(endPath, port.Port.IntVal, "must be greater than or equal to `port`"))
			}
			for _, msg := range validation.IsValidPortNum(int(*port.EndPort)) {
				allErrs = append(allErrs, field.Invalid(endPath, *port.EndPort, msg))
			}
		}
	default:
		if port.EndPort != nil {
			allErrs = append(allErrs, field.Invalid(endPath, *port.EndPort, "may not be specified when `port` is non-numeric"))
		}
		for _, msg := range validation.IsValidPortName(port.Port.StrVal) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("port"), port.Port.StrVal, msg))
		}
	}
	return allErrs
}

// validateNetworkPolicyPeer requires at least one peer kind; an ipBlock
// stands alone.
func validateNetworkPolicyPeer(peer *networkingv1.NetworkPolicyPeer, selOpts metav1validation.LabelSelectorValidationOptions, opts networkPolicyOptions, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	peers := 0
	if peer.PodSelector != nil {
		peers++
		allErrs = append(allErrs, metav1validation.ValidateLabelSelector(peer.PodSelector, selOpts, fldPath.Child("podSelector"))...)
	}
	if peer.NamespaceSelector != nil {
		peers++
		allErrs = append(allErrs, metav1validation.ValidateLabelSelector(peer.NamespaceSelector, selOpts, fldPath.Child("namespaceSelector"))...)
	}
	if peer.IPBlock != nil {
		peers++
		allErrs = append(allErrs, validateIPBlock(peer.IPBlock, opts, fldPath.Child("ipBlock"))...)
	}
	switch {
	case peers == 0:
		allErrs = append(allErrs, field.Required(fldPath, "must specify a peer"))
	case peers > 1 && peer.IPBlock != nil:
		allErrs = append(allErrs, field.Forbidden(fldPath, "may not specify both ipBlock and another peer"))
	}
	return allErrs
}

// validateIPBlock checks cidr and that each except is a strict subset.
func validateIPBlock(ipb *networkingv1.IPBlock, opts networkPolicyOptions, fldPath *field.Path) field.ErrorList {
	if ipb.CIDR == "" {
		return field.ErrorList{field.Required(fldPath.Child("cidr"), "")}
	}
	allErrs := validation.IsValidCIDRForLegacyField(fldPath.Child("cidr"), ipb.CIDR, true, opts.legacyCIDRs)
	_, cidr, err := net.ParseCIDR(ipb.CIDR)
	if err != nil {
		return allErrs
	}
	for i, except := range ipb.Except {
		exceptPath := fldPath.Child("except").Index(i)
		allErrs = append(allErrs, validation.IsValidCIDRForLegacyField(exceptPath, except, true, opts.legacyCIDRs)...)
		_, exceptNet, err := net.ParseCIDR(except)
		if err != nil {
			continue
		}
		cidrLen, _ := cidr.Mask.Size()
		exceptLen, _ := exceptNet.Mask.Size()
		if !cidr.Contains(exceptNet.IP) || cidrLen >= exceptLen {
			allErrs = append(allErrs, field.Invalid(exceptPath, except, "must be a strict subset of `cidr`"))
		}
	}
	return allErrs
}

// cidrsOf lists the CIDRs a stored policy holds, which stay valid.
func cidrsOf(spec *networkingv1.NetworkPolicySpec) []string {
	var out []string
	add := func(peers []networkingv1.NetworkPolicyPeer) {
		for _, p := range peers {
			if p.IPBlock != nil {
				out = append(out, p.IPBlock.CIDR)
				out = append(out, p.IPBlock.Except...)
			}
		}
	}
	for _, r := range spec.Ingress {
		add(r.From)
	}
	for _, r := range spec.Egress {
		add(r.To)
	}
	return out
}
