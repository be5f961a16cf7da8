package v1

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// RegisterDefaults adds the defaulting functions of the networking.k8s.io/v1
// kinds upstream defaults, and of their lists item by item. Ingresses
// have none in v1: pathType is required.
func RegisterDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&networkingv1.NetworkPolicy{}, func(obj any) { SetDefaultsNetworkPolicy(obj.(*networkingv1.NetworkPolicy)) })
	scheme.AddTypeDefaultingFunc(&networkingv1.NetworkPolicyList{}, func(obj any) {
		for i := range obj.(*networkingv1.NetworkPolicyList).Items {
			SetDefaultsNetworkPolicy(&obj.(*networkingv1.NetworkPolicyList).Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&networkingv1.IngressClass{}, func(obj any) { SetDefaultsIngressClass(obj.(*networkingv1.IngressClass)) })
	scheme.AddTypeDefaultingFunc(&networkingv1.IngressClassList{}, func(obj any) {
		for i := range obj.(*networkingv1.IngressClassList).Items {
			SetDefaultsIngressClass(&obj.(*networkingv1.IngressClassList).Items[i])
		}
	})
	return nil
}

// SetDefaultsNetworkPolicy makes ports TCP unless said otherwise, and a
// policy without policyTypes an Ingress policy, plus Egress when it has
// egress rules.
func SetDefaultsNetworkPolicy(np *networkingv1.NetworkPolicy) {
	for i := range np.Spec.Ingress {
		defaultPorts(np.Spec.Ingress[i].Ports)
	}
	for i := range np.Spec.Egress {
		defaultPorts(np.Spec.Egress[i].Ports)
	}
	if len(np.Spec.PolicyTypes) == 0 {
		np.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
		if len(np.Spec.Egress) != 0 {
			np.Spec.PolicyTypes = append(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
		}
	}
}

func defaultPorts(ports []networkingv1.NetworkPolicyPort) {
	for i := range ports {
		if ports[i].Protocol == nil {
			ports[i].Protocol = ptr.To(corev1.ProtocolTCP)
		}
	}
}

// SetDefaultsIngressClass scopes parameters to the cluster unless a
// scope is given.
func SetDefaultsIngressClass(ic *networkingv1.IngressClass) {
	if p := ic.Spec.Parameters; p != nil && p.Scope == nil {
		p.Scope = ptr.To(networkingv1.IngressClassParametersReferenceScopeCluster)
	}
}
