package endpointslice

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/kapi-dev/kapi/internal/controllers/endpointutil"
)

// reconciler turns a Service and its Pods into slices, changing as few
// slices as it can: endpoints are updated where they are, new ones fill
// the slices already being written, and only then new slices are made.
type reconciler struct {
	client      kubernetes.Interface
	nodes       corelisters.NodeLister
	maxPerSlice int
	tracker     *endpointutil.SliceTracker
}

// plan is what one reconcile writes.
type plan struct {
	create, update, remove []*discoveryv1.EndpointSlice
}

func (p *plan) add(o plan) {
	p.create = append(p.create, o.create...)
	p.update = append(p.update, o.update...)
	p.remove = append(p.remove, o.remove...)
}

// reconcile writes the Service's slices; existing are the slices this
// controller manages for it.
func (r *reconciler) reconcile(ctx context.Context, svc *corev1.Service, pods []*corev1.Pod, existing []*discoveryv1.EndpointSlice, trigger time.Time) error {
	types := addressTypes(svc)
	byType := map[discoveryv1.AddressType][]*discoveryv1.EndpointSlice{}
	var stray []*discoveryv1.EndpointSlice
	for _, s := range existing {
		if !slices.Contains(types, s.AddressType) {
			stray = append(stray, s)
			continue
		}
		byType[s.AddressType] = append(byType[s.AddressType], s)
	}
	var errs []error
	for _, t := range types {
		if err := r.reconcileType(ctx, svc, pods, byType[t], t, trigger); err != nil {
			errs = append(errs, err)
		}
	}
	for _, s := range stray {
		if err := r.client.DiscoveryV1().EndpointSlices(svc.Namespace).Delete(ctx, s.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting EndpointSlice %s of Service %s/%s: %w", s.Name, svc.Namespace, svc.Name, err))
			continue
		}
		r.tracker.ExpectDeletion(s)
	}
	return errors.Join(errs...)
}

// desiredGroup are the endpoints serving one set of ports.
type desiredGroup struct {
	ports     []discoveryv1.EndpointPort
	endpoints endpointutil.EndpointSet
}

func (r *reconciler) reconcileType(ctx context.Context, svc *corev1.Service, pods []*corev1.Pod, existing []*discoveryv1.EndpointSlice, addrType discoveryv1.AddressType, trigger time.Time) error {
	var p plan
	existingByPorts := map[string][]*discoveryv1.EndpointSlice{}
	for _, s := range existing {
		if endpointutil.OwnedBy(s, "Service", svc.UID) {
			k := endpointutil.PortsKey(s.Ports)
			existingByPorts[k] = append(existingByPorts[k], s)
		} else {
			// A slice of an earlier Service of the same name.
			p.remove = append(p.remove, s)
		}
	}
	desired, errs, err := r.desired(svc, pods, addrType)
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(desired)) {
		p.add(r.reconcilePorts(svc, existingByPorts[k], desired[k], addrType))
	}
	for k, ss := range existingByPorts {
		if _, ok := desired[k]; !ok {
			p.remove = append(p.remove, ss...)
		}
	}
	// A Service without endpoints keeps one empty slice, so that clients
	// can tell "no endpoints" from "not yet processed".
	if len(existing) == len(p.remove) && len(p.create) == 0 {
		placeholder := newSlice(svc, []discoveryv1.EndpointPort{}, addrType)
		if len(p.remove) == 1 && isPlaceholder(p.remove[0], placeholder) {
			p.remove = nil
		} else {
			p.create = append(p.create, placeholder)
		}
	}
	if err := r.finalize(ctx, svc, p, trigger); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// desired groups the Service's endpoints of addrType by port set.
// skipped are the Pods left out because their Node is not known (yet):
// reported so that the Service is retried.
func (r *reconciler) desired(svc *corev1.Service, pods []*corev1.Pod, addrType discoveryv1.AddressType) (groups map[string]*desiredGroup, skipped []error, err error) {
	groups = map[string]*desiredGroup{}
	for _, pod := range pods {
		if !endpointutil.ShouldPodBeInEndpoints(pod, true) {
			continue
		}
		ports := endpointPorts(svc, pod)
		k := endpointutil.PortsKey(ports)
		g := groups[k]
		if g == nil {
			g = &desiredGroup{ports: ports, endpoints: endpointutil.EndpointSet{}}
			groups[k] = g
		}
		node, err := r.nodes.Get(pod.Spec.NodeName)
		if err != nil {
			if !apierrors.IsNotFound(err) {
				return nil, nil, err
			}
			// Upstream leaves out a Pod whose Node it cannot see (an
			// unscheduled one too), unless not-ready addresses are
			// published anyway.
			if !svc.Spec.PublishNotReadyAddresses {
				skipped = append(skipped, fmt.Errorf("skipping Pod %s for Service %s/%s: Node %s Not Found", pod.Name, svc.Namespace, svc.Name, pod.Spec.NodeName))
				continue
			}
			node = nil
		}
		ep := podEndpoint(pod, node, svc, addrType)
		if len(ep.Addresses) > 0 {
			g.endpoints.Insert(&ep)
		}
	}
	return groups, skipped, nil
}

// isPlaceholder: the slice is the empty slice the Service keeps.
func isPlaceholder(s, placeholder *discoveryv1.EndpointSlice) bool {
	return s.Namespace == placeholder.Namespace && maps.Equal(s.Labels, placeholder.Labels) &&
		endpointutil.SemanticEqual(s.OwnerReferences, placeholder.OwnerReferences) &&
		s.AddressType == placeholder.AddressType && len(s.Endpoints) == 0 && len(s.Ports) == 0
}
