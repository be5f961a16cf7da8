package daemonset

import (
	"context"
	"sort"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/controllers/podcontrol"
)

// rollingUpdate replaces old Pods as upstream: without surge it deletes
// old Pods (unavailable ones first) while fewer than maxUnavailable
// nodes are unavailable, the manage loop then creates the new ones; with
// surge it creates new Pods next to old ones on up to maxSurge nodes and
// deletes each old Pod once its replacement is available.
func (c *Controller) rollingUpdate(ctx context.Context, ds *appsv1.DaemonSet, nodes []*corev1.Node, selector labels.Selector, hash string) error {
	byNode, err := c.podsByNode(ctx, ds, selector)
	if err != nil {
		return err
	}
	desired := 0
	for _, n := range nodes {
		if run, _ := shouldRun(n, ds); run {
			desired++
		}
	}
	maxSurge, maxUnavailable, err := budgets(ds, desired)
	if err != nil {
		return err
	}
	now := c.clock.Now()
	gen := templateGeneration(ds)
	names := make([]string, 0, len(byNode))
	for n := range byNode {
		names = append(names, n)
	}
	sort.Strings(names) // a stable order; upstream's is map order
	if maxSurge == 0 {
		return c.syncNodes(ctx, ds, oldPodsToDelete(ds, byNode, names, hash, gen, maxUnavailable, now), nil, hash)
	}
	var allowed, candidates, del []string
	surging := 0
	for _, node := range names {
		newPod, oldPod, ok := splitPods(byNode[node], hash, gen)
		switch {
		case !ok || oldPod == nil:
		case newPod == nil && !podcontrol.IsAvailable(oldPod, ds.Spec.MinReadySeconds, now):
			allowed = append(allowed, node)
		case newPod == nil && surging < maxSurge:
			candidates = append(candidates, node)
		case newPod == nil:
		case !podcontrol.IsAvailable(newPod, ds.Spec.MinReadySeconds, now):
			surging++
		default:
			del = append(del, oldPod.Name)
		}
	}
	room := min(max(maxSurge-surging, 0), len(candidates))
	return c.syncNodes(ctx, ds, del, append(allowed, candidates[:room]...), hash)
}

func oldPodsToDelete(ds *appsv1.DaemonSet, byNode map[string][]*corev1.Pod, names []string, hash string, gen *int64, maxUnavailable int, now time.Time) []string {
	unavailable := 0
	var allowed, candidates []string
	for _, node := range names {
		newPod, oldPod, ok := splitPods(byNode[node], hash, gen)
		switch {
		case !ok, (oldPod == nil) == (newPod == nil):
			unavailable++
		case newPod != nil:
			if !podcontrol.IsAvailable(newPod, ds.Spec.MinReadySeconds, now) {
				unavailable++
			}
		case !podcontrol.IsAvailable(oldPod, ds.Spec.MinReadySeconds, now):
			allowed = append(allowed, oldPod.Name)
		case unavailable < maxUnavailable:
			candidates = append(candidates, oldPod.Name)
		}
	}
	room := min(max(maxUnavailable-unavailable, 0), len(candidates))
	return append(allowed, candidates[:room]...)
}

// splitPods finds a node's one new and one old live Pod; ok is false
// when there are more (the manage loop cleans up first).
func splitPods(pods []*corev1.Pod, hash string, gen *int64) (newPod, oldPod *corev1.Pod, ok bool) {
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		if isUpdated(p, hash, gen) {
			if newPod != nil {
				return nil, nil, false
			}
			newPod = p
		} else {
			if oldPod != nil {
				return nil, nil, false
			}
			oldPod = p
		}
	}
	return newPod, oldPod, true
}

// updateStatus counts, per node that should run a Pod, whether it has
// one and whether its oldest is ready, available and updated; Pods on
// nodes that should not run one are misscheduled.
func (c *Controller) updateStatus(ctx context.Context, ds *appsv1.DaemonSet, nodes []*corev1.Node, selector labels.Selector, hash string, observed bool) error {
	byNode, err := c.podsByNode(ctx, ds, selector)
	if err != nil {
		return err
	}
	now := c.clock.Now()
	gen := templateGeneration(ds)
	s := ds.Status.DeepCopy()
	var desired, current, misscheduled, ready, available, updated int32
	for _, node := range nodes {
		run, _ := shouldRun(node, ds)
		pods := live(byNode[node.Name])
		if !run {
			if len(pods) > 0 {
				misscheduled++
			}
			continue
		}
		desired++
		if len(pods) == 0 {
			continue
		}
		current++
		sortPods(pods)
		if podcontrol.IsReady(pods[0]) {
			ready++
			if podcontrol.IsAvailable(pods[0], ds.Spec.MinReadySeconds, now) {
				available++
			}
		}
		if isUpdated(pods[0], hash, gen) {
			updated++
		}
	}
	s.DesiredNumberScheduled, s.CurrentNumberScheduled, s.NumberMisscheduled = desired, current, misscheduled
	s.NumberReady, s.NumberAvailable, s.UpdatedNumberScheduled = ready, available, updated
	s.NumberUnavailable = desired - available
	if observed {
		s.ObservedGeneration = ds.Generation
	}
	if ds.Spec.MinReadySeconds > 0 && ready != available {
		key, _ := cache.MetaNamespaceKeyFunc(ds)
		c.queue.AddAfter(key, time.Duration(ds.Spec.MinReadySeconds)*time.Second)
	}
	if statusEqual(&ds.Status, s) {
		return nil
	}
	n := ds.DeepCopy()
	n.Status = *s
	_, err = c.client.AppsV1().DaemonSets(n.Namespace).UpdateStatus(ctx, n, metav1.UpdateOptions{})
	return err
}

// live drops terminal Pods already being deleted, as upstream's status
// count does.
func live(pods []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		terminal := p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded
		if p.DeletionTimestamp != nil && terminal {
			continue
		}
		out = append(out, p)
	}
	return out
}

func statusEqual(a, b *appsv1.DaemonSetStatus) bool {
	return a.DesiredNumberScheduled == b.DesiredNumberScheduled && a.CurrentNumberScheduled == b.CurrentNumberScheduled &&
		a.NumberMisscheduled == b.NumberMisscheduled && a.NumberReady == b.NumberReady &&
		a.NumberAvailable == b.NumberAvailable && a.UpdatedNumberScheduled == b.UpdatedNumberScheduled &&
		a.NumberUnavailable == b.NumberUnavailable && a.ObservedGeneration == b.ObservedGeneration
}
