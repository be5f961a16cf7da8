package endpointslicemirroring

import (
	"context"
	"fmt"
	"maps"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/controllers/endpointutil"
)

// Event reasons, upstream's.
const (
	reasonInvalidIP  = "InvalidIPAddress"
	reasonTooMany    = "TooManyAddressesToMirror"
	actionMirror     = "MirrorEndpoints"
	maxMirrorSummary = "A max of %d addresses can be mirrored to EndpointSlices per Endpoints subset. %d addresses were skipped"
)

type reconciler struct {
	client       kubernetes.Interface
	maxPerSubset int
	tracker      *endpointutil.SliceTracker
	recorder     events.EventRecorder
}

// group is the desired content of one slice: an address type and a set
// of ports (one Endpoints subset, or several with the same ports).
type group struct {
	addrType  discoveryv1.AddressType
	ports     []discoveryv1.EndpointPort
	endpoints endpointutil.EndpointSet
}

func groupKey(t discoveryv1.AddressType, ports []discoveryv1.EndpointPort) string {
	return string(t) + "|" + endpointutil.PortsKey(ports)
}

// plan is what one reconcile writes.
type plan struct {
	create, update, remove []*discoveryv1.EndpointSlice
}

// reconcile makes the mirrored slices of ep match its subsets: one slice
// per address type and port set, at most maxPerSubset addresses of a
// subset mirrored (ready ones first).
func (r *reconciler) reconcile(ctx context.Context, ep *corev1.Endpoints, existing []*discoveryv1.EndpointSlice) error {
	desired, invalid, skipped := r.desired(ep)
	if invalid > 0 {
		r.recorder.Eventf(ep, nil, corev1.EventTypeWarning, reasonInvalidIP, actionMirror,
			"Skipped %d invalid IP addresses when mirroring to EndpointSlices", invalid)
	}
	if skipped > invalid {
		r.recorder.Eventf(ep, nil, corev1.EventTypeWarning, reasonTooMany, actionMirror, maxMirrorSummary, r.maxPerSubset, skipped)
	}
	existingByKey := map[string][]*discoveryv1.EndpointSlice{}
	for _, s := range existing {
		k := groupKey(s.AddressType, s.Ports)
		existingByKey[k] = append(existingByKey[k], s)
	}
	var p plan
	for _, k := range slices.Sorted(maps.Keys(desired)) {
		r.reconcileGroup(ep, existingByKey[k], desired[k], &p)
	}
	for k, ss := range existingByKey {
		if _, ok := desired[k]; !ok {
			p.remove = append(p.remove, ss...)
		}
	}
	return r.finalize(ctx, ep, p)
}

// desired groups ep's addresses; invalid counts addresses that are not
// IPs, skipped every address left out (invalid or over the limit).
func (r *reconciler) desired(ep *corev1.Endpoints) (groups map[string]*group, invalid, skipped int) {
	groups = map[string]*group{}
	for _, subset := range ep.Subsets {
		ports := mirrorPorts(subset.Ports)
		// Both families get a group, so a family whose addresses went
		// has its slice removed.
		for _, t := range []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6} {
			if groups[groupKey(t, ports)] == nil {
				groups[groupKey(t, ports)] = &group{addrType: t, ports: ports, endpoints: endpointutil.EndpointSet{}}
			}
		}
		added := 0
		add := func(addrs []corev1.EndpointAddress, ready bool) {
			for _, a := range addrs {
				if added >= r.maxPerSubset {
					return
				}
				e, t, ok := addressEndpoint(a, ready)
				if !ok {
					invalid++
					continue
				}
				groups[groupKey(t, ports)].endpoints.Insert(e)
				added++
			}
		}
		add(subset.Addresses, true)
		add(subset.NotReadyAddresses, false)
		skipped += len(subset.Addresses) + len(subset.NotReadyAddresses) - added
	}
	return groups, invalid, skipped
}

// addressEndpoint is an Endpoints address as a slice endpoint (its IP in
// canonical form) and its address type.
func addressEndpoint(a corev1.EndpointAddress, ready bool) (*discoveryv1.Endpoint, discoveryv1.AddressType, bool) {
	ip, err := netip.ParseAddr(a.IP)
	if err != nil {
		return nil, "", false
	}
	ip = ip.Unmap()
	t := discoveryv1.AddressTypeIPv4
	if ip.Is6() {
		t = discoveryv1.AddressTypeIPv6
	}
	e := &discoveryv1.Endpoint{
		Addresses:  []string{ip.String()},
		Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(ready)},
		TargetRef:  a.TargetRef,
		NodeName:   a.NodeName,
	}
	if a.Hostname != "" {
		e.Hostname = ptr.To(a.Hostname)
	}
	return e, t, true
}

func mirrorPorts(ports []corev1.EndpointPort) []discoveryv1.EndpointPort {
	out := []discoveryv1.EndpointPort{}
	for _, p := range ports {
		out = append(out, discoveryv1.EndpointPort{Name: ptr.To(p.Name), Port: ptr.To(p.Port), Protocol: ptr.To(p.Protocol), AppProtocol: p.AppProtocol})
	}
	return out
}

// reconcileGroup keeps one slice per group: the first existing one,
// rewritten only when its endpoints, labels or annotations differ.
func (r *reconciler) reconcileGroup(ep *corev1.Endpoints, existing []*discoveryv1.EndpointSlice, want *group, p *plan) {
	if len(want.endpoints) == 0 {
		p.remove = append(p.remove, existing...)
		return
	}
	name := ""
	if len(existing) > 0 {
		p.remove = append(p.remove, existing[1:]...)
		if upToDate(ep, existing[0], want.endpoints) {
			return
		}
		name = existing[0].Name
	}
	s := newSlice(ep, want.ports, want.addrType, name)
	for len(want.endpoints) > 0 && len(s.Endpoints) < r.maxPerSubset {
		s.Endpoints = append(s.Endpoints, *want.endpoints.PopFirst())
	}
	if name == "" {
		p.create = append(p.create, s)
	} else {
		s.ResourceVersion = existing[0].ResourceVersion
		p.update = append(p.update, s)
	}
}

// upToDate: the slice holds exactly the desired endpoints, and the
// Endpoints' labels and annotations.
func upToDate(ep *corev1.Endpoints, s *discoveryv1.EndpointSlice, want endpointutil.EndpointSet) bool {
	if len(s.Endpoints) != len(want) {
		return false
	}
	for i := range s.Endpoints {
		got := want.Get(&s.Endpoints[i])
		if got == nil || !endpointutil.EndpointsEqualBeyondKey(got, &s.Endpoints[i]) {
			return false
		}
	}
	have := maps.Clone(s.Labels)
	delete(have, discoveryv1.LabelManagedBy)
	delete(have, discoveryv1.LabelServiceName)
	return endpointutil.SemanticEqual(have, ep.Labels) && endpointutil.SemanticEqual(mirrorAnnotations(ep), s.Annotations)
}

// mirrorAnnotations are the Endpoints' annotations but the trigger time
// and kubectl's last-applied configuration.
func mirrorAnnotations(ep *corev1.Endpoints) map[string]string {
	a := maps.Clone(ep.Annotations)
	if a == nil {
		a = map[string]string{}
	}
	delete(a, corev1.EndpointsLastChangeTriggerTime)
	delete(a, corev1.LastAppliedConfigAnnotation)
	return a
}

// newSlice is the mirrored slice of one group, named name (or to be
// generated).
func newSlice(ep *corev1.Endpoints, ports []discoveryv1.EndpointPort, t discoveryv1.AddressType, name string) *discoveryv1.EndpointSlice {
	owner := metav1.NewControllerRef(ep, schema.GroupVersionKind{Version: "v1", Kind: "Endpoints"})
	labels := maps.Clone(ep.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[discoveryv1.LabelServiceName] = ep.Name
	labels[discoveryv1.LabelManagedBy] = ControllerName
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: ep.Namespace, Labels: labels, Annotations: mirrorAnnotations(ep),
			OwnerReferences: []metav1.OwnerReference{*owner},
		},
		AddressType: t,
		Ports:       ports,
		Endpoints:   []discoveryv1.Endpoint{},
	}
	if name == "" {
		s.GenerateName = endpointutil.SlicePrefix(ep.Name)
	}
	return s
}

// finalize writes the plan, turning a create and a delete of the same
// address type into an update of the deleted slice.
func (r *reconciler) finalize(ctx context.Context, ep *corev1.Endpoints, p plan) error {
	for i := 0; i < len(p.create); {
		j := slices.IndexFunc(p.remove, func(s *discoveryv1.EndpointSlice) bool { return s.AddressType == p.create[i].AddressType })
		if j < 0 {
			i++
			continue
		}
		s := p.create[i]
		s.Name, s.GenerateName, s.ResourceVersion = p.remove[j].Name, "", p.remove[j].ResourceVersion
		p.update = append(p.update, s)
		p.create = slices.Delete(p.create, i, i+1)
		p.remove = slices.Delete(p.remove, j, j+1)
	}
	client := r.client.DiscoveryV1().EndpointSlices(ep.Namespace)
	if ep.DeletionTimestamp == nil {
		for _, s := range p.create {
			created, err := client.Create(ctx, s, metav1.CreateOptions{})
			if err != nil {
				if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
					return nil
				}
				return fmt.Errorf("failed to create EndpointSlice for Endpoints %s/%s: %w", ep.Namespace, ep.Name, err)
			}
			r.tracker.Update(created)
		}
	}
	for _, s := range p.update {
		updated, err := client.Update(ctx, s, metav1.UpdateOptions{})
		if err != nil {
			return fmt.Errorf("failed to update %s EndpointSlice for Endpoints %s/%s: %w", s.Name, ep.Namespace, ep.Name, err)
		}
		r.tracker.Update(updated)
	}
	for _, s := range p.remove {
		if err := client.Delete(ctx, s.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("failed to delete %s EndpointSlice for Endpoints %s/%s: %w", s.Name, ep.Namespace, ep.Name, err)
		}
		r.tracker.ExpectDeletion(s)
	}
	return nil
}
