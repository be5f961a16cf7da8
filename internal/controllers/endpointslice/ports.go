package endpointslice

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/controllers/endpointutil"
)

// reconcilePorts plans the slices of one port set: existing endpoints
// are kept in their slice (updated if their conditions changed), gone
// ones removed, new ones added first to slices being updated anyway,
// then to the unchanged slice they fit best, then to new slices.
func (r *reconciler) reconcilePorts(svc *corev1.Service, existing []*discoveryv1.EndpointSlice, want *desiredGroup, addrType discoveryv1.AddressType) plan {
	var p plan
	byName := map[string]*discoveryv1.EndpointSlice{}
	var unchanged, toUpdate []string
	for _, s := range existing {
		byName[s.Name] = s
		var kept []discoveryv1.Endpoint
		changed := false
		for i := range s.Endpoints {
			ep := &s.Endpoints[i]
			if got := want.endpoints.Get(ep); got != nil {
				kept = append(kept, *got)
				changed = changed || !endpointutil.EndpointsEqualBeyondKey(got, ep)
				want.endpoints.Delete(ep)
			}
		}
		labels, labelsChanged := sliceLabels(s, svc)
		switch {
		case changed || len(kept) != len(s.Endpoints):
			if len(kept) == 0 {
				p.remove = append(p.remove, s)
				continue
			}
			c := s.DeepCopy()
			c.Endpoints, c.Labels = kept, labels
			byName[s.Name] = c
			toUpdate = append(toUpdate, s.Name)
		case labelsChanged:
			c := s.DeepCopy()
			c.Labels = labels
			byName[s.Name] = c
			toUpdate = append(toUpdate, s.Name)
		default:
			unchanged = append(unchanged, s.Name)
		}
	}
	// Fill the slices written anyway, fullest first.
	slices.SortStableFunc(toUpdate, func(a, b string) int {
		return cmp.Compare(len(byName[b].Endpoints), len(byName[a].Endpoints))
	})
	for _, name := range toUpdate {
		r.fill(byName[name], want.endpoints)
	}
	for len(want.endpoints) > 0 {
		var target *discoveryv1.EndpointSlice
		if len(want.endpoints) < r.maxPerSlice {
			target = bestFit(byName, unchanged, len(want.endpoints), r.maxPerSlice)
		}
		if target == nil {
			target = newSlice(svc, want.ports, addrType)
		} else {
			target = target.DeepCopy()
			byName[target.Name] = target
			unchanged = slices.DeleteFunc(unchanged, func(n string) bool { return n == target.Name })
			toUpdate = append(toUpdate, target.Name)
		}
		r.fill(target, want.endpoints)
		if target.Name == "" {
			p.create = append(p.create, target)
		}
	}
	for _, name := range toUpdate {
		p.update = append(p.update, byName[name])
	}
	return p
}

func (r *reconciler) fill(s *discoveryv1.EndpointSlice, from endpointutil.EndpointSet) {
	for len(from) > 0 && len(s.Endpoints) < r.maxPerSlice {
		s.Endpoints = append(s.Endpoints, *from.PopFirst())
	}
}

// bestFit is the unchanged slice that n more endpoints fill the most
// without overflowing.
func bestFit(byName map[string]*discoveryv1.EndpointSlice, names []string, n, max int) *discoveryv1.EndpointSlice {
	var best *discoveryv1.EndpointSlice
	closest := max
	for _, name := range names {
		s := byName[name]
		if diff := max - (n + len(s.Endpoints)); diff >= 0 && diff < closest {
			best, closest = s, diff
		}
	}
	return best
}

// finalize writes the plan. A slice to delete is recycled as a slice to
// create (its name reused, as an update) where it can be, so that a
// port change does not churn slices.
func (r *reconciler) finalize(ctx context.Context, svc *corev1.Service, p plan, trigger time.Time) error {
	for i := 0; i < len(p.remove) && len(p.create) > 0; {
		old, fresh := p.remove[i], p.create[len(p.create)-1]
		if old.AddressType != fresh.AddressType || !endpointutil.OwnedBy(old, "Service", svc.UID) {
			i++
			continue
		}
		fresh.Name, fresh.GenerateName = old.Name, ""
		fresh.ResourceVersion = old.ResourceVersion
		p.create = p.create[:len(p.create)-1]
		p.update = append(p.update, fresh)
		p.remove = slices.Delete(p.remove, i, i+1)
	}
	client := r.client.DiscoveryV1().EndpointSlices(svc.Namespace)
	// A Service being deleted gets no new slices.
	if svc.DeletionTimestamp == nil {
		for _, s := range p.create {
			annotate(s, trigger)
			created, err := client.Create(ctx, s, metav1.CreateOptions{})
			if err != nil {
				if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
					return nil
				}
				return fmt.Errorf("failed to create EndpointSlice for Service %s/%s: %w", svc.Namespace, svc.Name, err)
			}
			r.tracker.Update(created)
		}
	}
	for _, s := range p.update {
		annotate(s, trigger)
		updated, err := client.Update(ctx, s, metav1.UpdateOptions{})
		if err != nil {
			return fmt.Errorf("failed to update %s EndpointSlice for Service %s/%s: %w", s.Name, svc.Namespace, svc.Name, err)
		}
		r.tracker.Update(updated)
	}
	for _, s := range p.remove {
		if err := client.Delete(ctx, s.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("failed to delete %s EndpointSlice for Service %s/%s: %w", s.Name, svc.Namespace, svc.Name, err)
		}
		r.tracker.ExpectDeletion(s)
	}
	return nil
}

func annotate(s *discoveryv1.EndpointSlice, trigger time.Time) {
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	endpointutil.TriggerTimeAnnotation(s.Annotations, trigger)
	if len(s.Annotations) == 0 {
		s.Annotations = nil
	}
}
