package validation

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestValidateNode(t *testing.T) {
	node := func(mutate func(*corev1.Node)) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
		mutate(n)
		return n
	}
	tests := []struct {
		name string
		node *corev1.Node
		want []string
	}{
		{"minimal", node(func(*corev1.Node) {}), nil},
		{"bad name", node(func(n *corev1.Node) { n.Name = "N_1" }),
			[]string{"metadata.name: Invalid value: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"}},
		{"taint effect", node(func(n *corev1.Node) { n.Spec.Taints = []corev1.Taint{{Key: "k", Effect: "Never"}} }),
			[]string{`metadata.taints[0].effect: Unsupported value: supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`}},
		{"taint effect missing", node(func(n *corev1.Node) { n.Spec.Taints = []corev1.Taint{{Key: "k"}} }),
			[]string{"metadata.taints[0].effect: Required value: "}},
		{"duplicate taint", node(func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{{Key: "k", Effect: "NoSchedule"}, {Key: "k", Value: "v", Effect: "NoSchedule"}, {Key: "k", Effect: "NoExecute"}}
		}), []string{"metadata.taints[1]: Duplicate value: taints must be unique by key and effect pair"}},
		{"bad podCIDR", node(func(n *corev1.Node) { n.Spec.PodCIDRs = []string{"10.0.0.0"} }),
			[]string{`spec.podCIDRs[0]: Invalid value: must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`}},
		{"two IPv4 podCIDRs", node(func(n *corev1.Node) { n.Spec.PodCIDRs = []string{"10.0.0.0/24", "10.0.0.0/24"} }),
			[]string{"spec.podCIDRs: Invalid value: may specify no more than one CIDR for each IP family", "spec.podCIDRs[1]: Duplicate value: "}},
		{"dual stack", node(func(n *corev1.Node) { n.Spec.PodCIDRs = []string{"10.0.0.0/24", "fd00::/64"} }), nil},
		{"negative capacity", node(func(n *corev1.Node) {
			n.Status.Capacity = corev1.ResourceList{"cpu": resource.MustParse("-1")}
		}), []string{"status.capacity.cpu: Invalid value: must be greater than or equal to 0"}},
		{"fractional pods", node(func(n *corev1.Node) {
			n.Status.Allocatable = corev1.ResourceList{"pods": resource.MustParse("1.5")}
		}), []string{"status.allocatable.pods: Invalid value: must be an integer"}},
	}
	for _, tt := range tests {
		checkErrors(t, tt.name, ValidateNode(tt.node), tt.want)
	}
}

func TestValidateNodeUpdate(t *testing.T) {
	old := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", ResourceVersion: "1"}, Spec: corev1.NodeSpec{PodCIDRs: []string{"10.0.0.0/24"}, ProviderID: "p"}}
	update := func(mutate func(*corev1.Node)) *corev1.Node {
		n := old.DeepCopy()
		mutate(n)
		return n
	}
	tests := []struct {
		name string
		old  *corev1.Node
		node *corev1.Node
		want []string
	}{
		{"unschedulable", old, update(func(n *corev1.Node) { n.Spec.Unschedulable = true }), nil},
		{"podCIDR set once", &corev1.Node{ObjectMeta: old.ObjectMeta}, update(func(*corev1.Node) {}), nil},
		{"podCIDR changed", old, update(func(n *corev1.Node) { n.Spec.PodCIDRs = []string{"10.1.0.0/24"} }),
			[]string{`spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid`}},
		{"providerID changed", old, update(func(n *corev1.Node) { n.Spec.ProviderID = "q" }),
			[]string{`spec.providerID: Forbidden: node updates may not change providerID except from "" to valid`}},
		{"externalID", old, update(func(n *corev1.Node) { n.Spec.DoNotUseExternalID = "x" }),
			[]string{"spec.externalID: Forbidden: may not be updated"}},
		{"duplicate address", old, update(func(n *corev1.Node) {
			n.Status.Addresses = []corev1.NodeAddress{{Type: "InternalIP", Address: "1.2.3.4"}, {Type: "InternalIP", Address: "1.2.3.4"}}
		}), []string{"status.addresses[1]: Duplicate value: "}},
		{"name", old, update(func(n *corev1.Node) { n.Name = "n2" }),
			[]string{"metadata.name: Invalid value: field is immutable"}},
	}
	for _, tt := range tests {
		checkErrors(t, tt.name, ValidateNodeUpdate(tt.node, tt.old), tt.want)
	}
}
