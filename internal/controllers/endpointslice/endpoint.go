package endpointslice

import (
	"maps"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/controllers/endpointutil"
)

// podEndpoint is the Pod's endpoint in a slice of addrType. ready is
// serving and not terminating, or always with publishNotReadyAddresses.
func podEndpoint(pod *corev1.Pod, node *corev1.Node, svc *corev1.Service, addrType discoveryv1.AddressType) discoveryv1.Endpoint {
	serving := endpointutil.IsPodReady(pod)
	terminating := pod.DeletionTimestamp != nil
	ready := svc.Spec.PublishNotReadyAddresses || (serving && !terminating)
	ep := discoveryv1.Endpoint{
		Addresses:  podAddresses(pod, addrType),
		Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
		TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
	}
	if pod.Spec.NodeName != "" {
		ep.NodeName = ptr.To(pod.Spec.NodeName)
	}
	if node != nil && node.Labels[corev1.LabelTopologyZone] != "" {
		ep.Zone = ptr.To(node.Labels[corev1.LabelTopologyZone])
	}
	if endpointutil.ShouldSetHostname(pod, svc) {
		ep.Hostname = ptr.To(pod.Spec.Hostname)
	}
	return ep
}

// podAddresses are the Pod's IPs of the family, in canonical form.
func podAddresses(pod *corev1.Pod, addrType discoveryv1.AddressType) []string {
	var out []string
	for _, ip := range pod.Status.PodIPs {
		a, err := netip.ParseAddr(ip.IP)
		if err != nil {
			continue
		}
		a = a.Unmap()
		if (a.Is6() && addrType == discoveryv1.AddressTypeIPv6) || (a.Is4() && addrType == discoveryv1.AddressTypeIPv4) {
			out = append(out, a.String())
		}
	}
	return out
}

// endpointPorts are the Service's ports resolved on the Pod; ports the
// Pod does not have are left out.
func endpointPorts(svc *corev1.Service, pod *corev1.Pod) []discoveryv1.EndpointPort {
	ports := []discoveryv1.EndpointPort{}
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		n, err := endpointutil.FindPort(pod, sp)
		if err != nil {
			continue
		}
		ports = append(ports, discoveryv1.EndpointPort{
			Name: ptr.To(sp.Name), Port: ptr.To(int32(n)), Protocol: ptr.To(sp.Protocol), AppProtocol: sp.AppProtocol,
		})
	}
	return ports
}

// addressTypes are the slice address types a Service has: one per IP
// family, or (from a server that does not fill ipFamilies) the cluster
// IP's, or both for a headless Service.
func addressTypes(svc *corev1.Service) []discoveryv1.AddressType {
	set := map[discoveryv1.AddressType]bool{}
	for _, f := range svc.Spec.IPFamilies {
		switch f {
		case corev1.IPv4Protocol:
			set[discoveryv1.AddressTypeIPv4] = true
		case corev1.IPv6Protocol:
			set[discoveryv1.AddressTypeIPv6] = true
		}
	}
	if len(set) == 0 && endpointutil.IsServiceIPSet(svc) {
		a, err := netip.ParseAddr(svc.Spec.ClusterIP)
		if err == nil && a.Is6() && !a.Is4In6() {
			set[discoveryv1.AddressTypeIPv6] = true
		} else {
			set[discoveryv1.AddressTypeIPv4] = true
		}
	}
	if len(set) == 0 {
		set[discoveryv1.AddressTypeIPv4] = true
		set[discoveryv1.AddressTypeIPv6] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// newSlice is an empty slice of the Service, to be created.
func newSlice(svc *corev1.Service, ports []discoveryv1.EndpointPort, addrType discoveryv1.AddressType) *discoveryv1.EndpointSlice {
	owner := metav1.NewControllerRef(svc, schema.GroupVersionKind{Version: "v1", Kind: "Service"})
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    endpointutil.SlicePrefix(svc.Name),
			Namespace:       svc.Namespace,
			OwnerReferences: []metav1.OwnerReference{*owner},
		},
		AddressType: addrType,
		Ports:       ports,
		Endpoints:   []discoveryv1.Endpoint{},
	}
	s.Labels, _ = sliceLabels(s, svc)
	return s
}

// reserved are the labels the controller owns on its slices.
func reserved(key string) bool {
	return key == discoveryv1.LabelServiceName || key == discoveryv1.LabelManagedBy || key == corev1.IsHeadlessService
}

// sliceLabels are a slice's labels: the Service's (but the reserved
// ones), the service name, managed-by and the headless mark. changed
// says whether the Service's labels differ from those on the slice.
func sliceLabels(slice *discoveryv1.EndpointSlice, svc *corev1.Service) (map[string]string, bool) {
	have, want := map[string]string{}, map[string]string{}
	for k, v := range slice.Labels {
		if !reserved(k) {
			have[k] = v
		}
	}
	for k, v := range svc.Labels {
		if !reserved(k) {
			want[k] = v
		}
	}
	changed := !maps.Equal(have, want)
	if !endpointutil.IsServiceIPSet(svc) {
		want[corev1.IsHeadlessService] = ""
	}
	want[discoveryv1.LabelServiceName] = svc.Name
	want[discoveryv1.LabelManagedBy] = ControllerName
	return want, changed
}
