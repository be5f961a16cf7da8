package endpoints

import (
	"cmp"
	"maps"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/internal/controllers/endpointutil"
)

const (
	// maxCapacity is the most addresses an Endpoints object holds
	// (upstream's limit; EndpointSlices carry the rest).
	maxCapacity = 1000
	// truncatedValue is endpoints.kubernetes.io/over-capacity's value.
	truncatedValue = "truncated"
)

// desiredSubsets are the Service's endpoints from its Pods, packed as
// the API wants them: one subset per set of addresses offering the same
// ports.
func desiredSubsets(svc *corev1.Service, pods []*corev1.Pod) []corev1.EndpointSubset {
	var flat []corev1.EndpointSubset
	for _, pod := range pods {
		// Without a kubelet nothing but a test gives a Pod an IP; a Pod
		// not bound to a node is not an endpoint (its address could not
		// name a node).
		if pod.Spec.NodeName == "" || !endpointutil.ShouldPodBeInEndpoints(pod, svc.Spec.PublishNotReadyAddresses) {
			continue
		}
		addr, ok := podAddress(svc, pod)
		if !ok {
			continue
		}
		ready := svc.Spec.PublishNotReadyAddresses || endpointutil.IsPodReady(pod)
		if len(svc.Spec.Ports) == 0 {
			// Only a headless Service may have no ports.
			if svc.Spec.ClusterIP == corev1.ClusterIPNone {
				flat = append(flat, subsetOf(addr, nil, ready))
			}
			continue
		}
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			port, err := endpointutil.FindPort(pod, sp)
			if err != nil {
				continue
			}
			flat = append(flat, subsetOf(addr, &corev1.EndpointPort{
				Name: sp.Name, Port: int32(port), Protocol: sp.Protocol, AppProtocol: sp.AppProtocol,
			}, ready))
		}
	}
	return repack(flat)
}

func subsetOf(addr corev1.EndpointAddress, port *corev1.EndpointPort, ready bool) corev1.EndpointSubset {
	s := corev1.EndpointSubset{}
	if port != nil {
		s.Ports = []corev1.EndpointPort{*port}
	}
	if ready {
		s.Addresses = []corev1.EndpointAddress{addr}
	} else {
		s.NotReadyAddresses = []corev1.EndpointAddress{addr}
	}
	return s
}

// podAddress is the Pod's address in the Service's (first) IP family.
func podAddress(svc *corev1.Service, pod *corev1.Pod) (corev1.EndpointAddress, bool) {
	v6 := false
	switch {
	case len(svc.Spec.IPFamilies) > 0:
		v6 = svc.Spec.IPFamilies[0] == corev1.IPv6Protocol
	case endpointutil.IsServiceIPSet(svc):
		v6 = isV6(svc.Spec.ClusterIP)
	default:
		v6 = isV6(pod.Status.PodIP)
	}
	for _, ip := range pod.Status.PodIPs {
		if isV6(ip.IP) != v6 {
			continue
		}
		addr := corev1.EndpointAddress{
			IP:        ip.IP,
			NodeName:  &pod.Spec.NodeName,
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		}
		if endpointutil.ShouldSetHostname(pod, svc) {
			addr.Hostname = pod.Spec.Hostname
		}
		return addr, true
	}
	return corev1.EndpointAddress{}, false
}

func isV6(ip string) bool {
	a, err := netip.ParseAddr(ip)
	return err == nil && a.Is6() && !a.Is4In6()
}

// addrID identifies an address across subsets (upstream: IP and Pod UID).
type addrID struct{ ip, uid string }

func idOf(a *corev1.EndpointAddress) addrID {
	id := addrID{ip: a.IP}
	if a.TargetRef != nil {
		id.uid = string(a.TargetRef.UID)
	}
	return id
}

// repack merges one-address subsets into the canonical form: addresses
// grouped by the exact set of ports they serve, everything sorted, so
// that equal contents compare equal.
func repack(flat []corev1.EndpointSubset) []corev1.EndpointSubset {
	noPort := corev1.EndpointPort{Port: -1}
	addrs := map[addrID]corev1.EndpointAddress{}
	byPort := map[corev1.EndpointPort]map[addrID]bool{} // address -> ready
	add := func(p corev1.EndpointPort, list []corev1.EndpointAddress, ready bool) {
		if byPort[p] == nil {
			byPort[p] = map[addrID]bool{}
		}
		for i := range list {
			id := idOf(&list[i])
			addrs[id] = list[i]
			// Ready wins when a Pod appears twice.
			byPort[p][id] = byPort[p][id] || ready
		}
	}
	for _, s := range flat {
		ports := s.Ports
		if len(ports) == 0 {
			ports = []corev1.EndpointPort{noPort}
		}
		for _, p := range ports {
			add(p, s.Addresses, true)
			add(p, s.NotReadyAddresses, false)
		}
	}
	type group struct {
		set   map[addrID]bool
		ports []corev1.EndpointPort
	}
	groups := map[string]*group{}
	for p, set := range byPort {
		key := setKey(set)
		g := groups[key]
		if g == nil {
			g = &group{set: set}
			groups[key] = g
		}
		if p != noPort {
			g.ports = append(g.ports, p)
		}
	}
	out := []corev1.EndpointSubset{}
	for _, g := range groups {
		s := corev1.EndpointSubset{Ports: g.ports}
		for _, id := range slices.SortedFunc(maps.Keys(g.set), compareID) {
			if g.set[id] {
				s.Addresses = append(s.Addresses, addrs[id])
			} else {
				s.NotReadyAddresses = append(s.NotReadyAddresses, addrs[id])
			}
		}
		slices.SortFunc(s.Ports, comparePort)
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b corev1.EndpointSubset) int { return strings.Compare(subsetKey(a), subsetKey(b)) })
	return out
}

func compareID(a, b addrID) int {
	return cmp.Or(strings.Compare(a.ip, b.ip), strings.Compare(a.uid, b.uid))
}

func comparePort(a, b corev1.EndpointPort) int {
	return cmp.Or(strings.Compare(a.Name, b.Name), cmp.Compare(a.Port, b.Port), strings.Compare(string(a.Protocol), string(b.Protocol)))
}

func setKey(set map[addrID]bool) string {
	var b strings.Builder
	for _, id := range slices.SortedFunc(maps.Keys(set), compareID) {
		b.WriteString(id.ip + "/" + id.uid)
		if set[id] {
			b.WriteString("+")
		}
		b.WriteByte(',')
	}
	return b.String()
}

func subsetKey(s corev1.EndpointSubset) string {
	var b strings.Builder
	for _, p := range s.Ports {
		b.WriteString(p.Name + "/" + string(p.Protocol) + "/" + strconv.Itoa(int(p.Port)) + ";")
	}
	for _, a := range s.Addresses {
		b.WriteString(a.IP + ",")
	}
	for _, a := range s.NotReadyAddresses {
		b.WriteString("!" + a.IP + ",")
	}
	return b.String()
}

// desiredLabels are the Service's labels, plus service.kubernetes.io/
// headless for a Service without a cluster IP.
func desiredLabels(svc *corev1.Service) map[string]string {
	l := maps.Clone(svc.Labels)
	if l == nil {
		l = map[string]string{}
	}
	if endpointutil.IsServiceIPSet(svc) {
		delete(l, corev1.IsHeadlessService)
	} else {
		l[corev1.IsHeadlessService] = ""
	}
	return l
}

// upToDate: the Endpoints already say what they should; the trigger
// time alone is never a reason to write.
func upToDate(ep *corev1.Endpoints, svc *corev1.Service, subsets []corev1.EndpointSubset) bool {
	have := ep.Labels
	if _, ok := have[corev1.IsHeadlessService]; ok {
		have = maps.Clone(have)
		delete(have, corev1.IsHeadlessService)
	}
	return endpointutil.SemanticEqual(ep.Subsets, subsets) && endpointutil.SemanticEqual(have, svc.Labels) &&
		capacityAnnotationCorrect(ep)
}

func countAddresses(subsets []corev1.EndpointSubset) (ready, notReady int) {
	for _, s := range subsets {
		ready += len(s.Addresses)
		notReady += len(s.NotReadyAddresses)
	}
	return ready, notReady
}

// capacityAnnotationCorrect: under capacity and not marked truncated.
func capacityAnnotationCorrect(ep *corev1.Endpoints) bool {
	r, n := countAddresses(ep.Subsets)
	if r+n > maxCapacity {
		return false
	}
	_, marked := ep.Annotations[corev1.EndpointsOverCapacity]
	return !marked
}

// truncate cuts the Endpoints down to maxCapacity addresses, ready ones
// first, each subset keeping its share, and says whether it cut.
func truncate(ep *corev1.Endpoints) bool {
	ready, notReady := countAddresses(ep.Subsets)
	if ready+notReady <= maxCapacity {
		return false
	}
	cutReady := ready > maxCapacity
	budget, total := maxCapacity-ready, notReady
	if cutReady {
		budget, total = maxCapacity, ready
	}
	left := budget
	for i := range ep.Subsets {
		s := &ep.Subsets[i]
		n := len(s.NotReadyAddresses)
		if cutReady {
			n = len(s.Addresses)
		}
		share := min(int(math.Ceil(float64(n)/float64(total)*float64(budget))), left)
		if cutReady {
			s.Addresses = s.Addresses[:min(share, len(s.Addresses))]
			s.NotReadyAddresses = nil
			left -= len(s.Addresses)
		} else {
			s.NotReadyAddresses = s.NotReadyAddresses[:min(share, len(s.NotReadyAddresses))]
			left -= len(s.NotReadyAddresses)
		}
	}
	return true
}
