// Package nodes simulates kubelets for kapi's --simulated-nodes: it
// registers Node objects with capacity, well-known labels, addresses and
// kubelet's conditions, renews their kube-node-lease Leases and reports
// their status at a kubelet's intervals, and keeps the NoSchedule taints
// the node lifecycle controller keeps (not-ready, unschedulable) on the
// nodes it simulates. Nodes it did not create (real kubelets) are left
// alone: every simulated Node carries the SimulatedLabel.
package nodes

import (
	"fmt"
	"net/netip"
	"runtime"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Names and defaults of the simulation.
const (
	// SimulatedLabel marks a Node kapi simulates; kapi acts on no other.
	SimulatedLabel = "kapi.dev/simulated-node"
	// NamePrefix is followed by the node's index: kapi-node-0, kapi-node-1...
	NamePrefix = "kapi-node-"
	// MaxNodes is the most --simulated-nodes accepts: upstream's largest
	// supported cluster, and what the pod CIDR plan below has room for.
	MaxNodes = 5000
	// KubeletPort is the daemon endpoint a kubelet publishes.
	KubeletPort = 10250

	// LeaseDuration and RenewInterval are kubelet's: the lease lasts 40s
	// (--node-lease-duration-seconds) and is renewed every quarter of it.
	LeaseDuration = 40 * time.Second
	RenewInterval = LeaseDuration / 4
	// StatusReportFrequency is kubelet's nodeStatusReportFrequency: an
	// unchanged status is still posted this often.
	StatusReportFrequency = 5 * time.Minute
)

// Zones are the topology.kubernetes.io/zone values nodes are spread over,
// round-robin by index.
var Zones = []string{"zone-a", "zone-b", "zone-c"}

// Name is the name of the node with index i.
func Name(i int) string { return NamePrefix + strconv.Itoa(i) }

// podNetwork is the cluster CIDR the per-node /24s are cut from:
// 10.64.0.0/10 holds 16384 of them, node i has the i-th.
var podNetwork = netip.MustParsePrefix("10.64.0.0/10")

// nodeNetwork holds the nodes' InternalIPs: node i has 172.16.0.0 + 10 + i.
var nodeNetwork = netip.MustParsePrefix("172.16.0.0/12")

// PodCIDR is the pod CIDR of node i: 10.64.0.0/24, 10.64.1.0/24, ...
func PodCIDR(i int) netip.Prefix {
	return netip.PrefixFrom(addOffset(podNetwork.Addr(), uint32(i)<<8), 24)
}

// InternalIP is the InternalIP address of node i.
func InternalIP(i int) netip.Addr { return addOffset(nodeNetwork.Addr(), uint32(10+i)) }

func addOffset(a netip.Addr, off uint32) netip.Addr {
	b := a.As4()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	v += off
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// Build returns node i from tmpl: the template's labels, annotations,
// taints, capacity and allocatable, and what a kubelet registers itself
// with. kubeletVersion is reported in nodeInfo.
func Build(i int, tmpl *corev1.Node, kubeletVersion string, now time.Time) *corev1.Node {
	name := Name(i)
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}, Annotations: map[string]string{}}}
	for k, v := range tmpl.Labels {
		n.Labels[k] = v
	}
	for k, v := range tmpl.Annotations {
		n.Annotations[k] = v
	}
	n.Labels[corev1.LabelHostname] = name
	n.Labels[corev1.LabelOSStable] = "linux"
	n.Labels[corev1.LabelArchStable] = runtime.GOARCH
	n.Labels[corev1.LabelTopologyZone] = Zones[i%len(Zones)]
	n.Labels[SimulatedLabel] = "true"
	// A kubelet asks for the volume controller to attach volumes.
	n.Annotations["volumes.kubernetes.io/controller-managed-attach-detach"] = "true"
	n.Spec.Taints = append(n.Spec.Taints, tmpl.Spec.Taints...)
	cidr := PodCIDR(i).String()
	n.Spec.PodCIDR, n.Spec.PodCIDRs = cidr, []string{cidr}
	n.Status = Status(i, tmpl, kubeletVersion, now)
	return n
}

// Status is the status a kubelet posts for node i at now.
func Status(i int, tmpl *corev1.Node, kubeletVersion string, now time.Time) corev1.NodeStatus {
	name := Name(i)
	capacity := tmpl.Status.Capacity.DeepCopy()
	allocatable := tmpl.Status.Allocatable.DeepCopy()
	if allocatable == nil {
		allocatable = capacity.DeepCopy()
	}
	return corev1.NodeStatus{
		Capacity:    capacity,
		Allocatable: allocatable,
		Phase:       "",
		Conditions:  Conditions(metav1.NewTime(now)),
		Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: InternalIP(i).String()},
			{Type: corev1.NodeHostName, Address: name},
		},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: KubeletPort}},
		NodeInfo: corev1.NodeSystemInfo{
			MachineID:               fmt.Sprintf("%032x", i+1),
			SystemUUID:              fmt.Sprintf("00000000-0000-0000-0000-%012x", i+1),
			BootID:                  fmt.Sprintf("kapi-simulated-%d", i),
			KernelVersion:           "kapi-simulated",
			OSImage:                 "kapi simulated node",
			ContainerRuntimeVersion: "kapi-simulated://" + kubeletVersion,
			KubeletVersion:          kubeletVersion,
			OperatingSystem:         "linux",
			Architecture:            runtime.GOARCH,
		},
	}
}

// Conditions are a healthy kubelet's node conditions, in kubelet's order,
// with its reasons and messages; every transition and heartbeat is now.
func Conditions(now metav1.Time) []corev1.NodeCondition {
	c := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: s, Reason: reason, Message: msg, LastHeartbeatTime: now, LastTransitionTime: now}
	}
	return []corev1.NodeCondition{
		c(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
		c(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
		c(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
		c(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
	}
}

// DefaultTemplate is the node every simulated node copies when no
// --simulated-node-template is given: 32 CPUs, 256Gi of memory, 110 pods
// (kubelet's --max-pods) and 100Gi of ephemeral storage, all allocatable.
func DefaultTemplate() *corev1.Node {
	rl := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("32"),
		corev1.ResourceMemory:           resource.MustParse("256Gi"),
		corev1.ResourcePods:             resource.MustParse("110"),
		corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
	}
	return &corev1.Node{Status: corev1.NodeStatus{Capacity: rl, Allocatable: rl.DeepCopy()}}
}

// IsSimulated reports whether n is a node kapi simulates.
func IsSimulated(n *corev1.Node) bool { return n != nil && n.Labels[SimulatedLabel] == "true" }
