package daemonset

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/controllers/podcontrol"
)

// manage creates Pods on nodes that should run one and have none, and
// deletes failed, succeeded, excess and misplaced ones, as upstream's
// manage and podsShouldBeOnNode.
func (c *Controller) manage(ctx context.Context, ds *appsv1.DaemonSet, nodes []*corev1.Node, selector labels.Selector, hash string) error {
	byNode, err := c.podsByNode(ctx, ds, selector)
	if err != nil {
		return err
	}
	var create, del []string
	known := map[string]bool{}
	for _, node := range nodes {
		known[node.Name] = true
		cr, dl := c.podsShouldBeOnNode(ds, node, byNode[node.Name], hash)
		create = append(create, cr...)
		del = append(del, dl...)
	}
	// Unbound Pods aimed at nodes that no longer exist go.
	for node, pods := range byNode {
		if known[node] {
			continue
		}
		for _, p := range pods {
			if p.Spec.NodeName == "" && p.DeletionTimestamp == nil {
				del = append(del, p.Name)
			}
		}
	}
	return c.syncNodes(ctx, ds, del, create, hash)
}

func (c *Controller) podsShouldBeOnNode(ds *appsv1.DaemonSet, node *corev1.Node, pods []*corev1.Pod, hash string) (create, del []string) {
	run, keep := shouldRun(node, ds)
	switch {
	case run && len(pods) == 0:
		return []string{node.Name}, nil
	case keep:
		var running []*corev1.Pod
		for _, p := range pods {
			switch {
			case p.DeletionTimestamp != nil:
			case p.Status.Phase == corev1.PodFailed:
				if d, ok := c.failedPodBackoff(ds, node.Name); !ok {
					key, _ := cache.MetaNamespaceKeyFunc(ds)
					c.queue.AddAfter(key, d)
					continue
				}
				c.recorder.Eventf(ds, p, corev1.EventTypeWarning, "FailedDaemonPod", "Sync",
					"Found failed daemon pod %s/%s on node %s, will try to kill it", p.Namespace, p.Name, node.Name)
				del = append(del, p.Name)
			case p.Status.Phase == corev1.PodSucceeded:
				del = append(del, p.Name)
			default:
				running = append(running, p)
			}
		}
		return keepPods(ds, running, run, node.Name, hash, c.clock.Now(), del)
	case len(pods) > 0:
		for _, p := range pods {
			if p.DeletionTimestamp == nil {
				del = append(del, p.Name)
			}
		}
	}
	return nil, del
}

// keepPods prunes a node's live Pods: without surge all but the oldest
// go; with surge an old and a new Pod may coexist while the new one is
// not yet available.
func keepPods(ds *appsv1.DaemonSet, running []*corev1.Pod, run bool, node, hash string, now time.Time, del []string) (create, out []string) {
	sortPods(running)
	if !allowsSurge(ds) {
		for _, p := range running[min(1, len(running)):] {
			del = append(del, p.Name)
		}
		return nil, del
	}
	if len(running) == 0 {
		if run {
			create = []string{node}
		}
		return create, del
	}
	var oldestNew, oldestOld *corev1.Pod
	for _, p := range running {
		isNew := p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash
		switch {
		case isNew && oldestNew == nil:
			oldestNew = p
		case !isNew && oldestOld == nil:
			oldestOld = p
		default:
			del = append(del, p.Name)
		}
	}
	if oldestNew != nil && oldestOld != nil && (!podcontrol.IsReady(oldestOld) || podcontrol.IsAvailable(oldestNew, ds.Spec.MinReadySeconds, now)) {
		del = append(del, oldestOld.Name)
	}
	return nil, del
}

// failedPodBackoff says whether a failed Pod on node may be replaced
// now; if not, how long to wait.
func (c *Controller) failedPodBackoff(ds *appsv1.DaemonSet, node string) (time.Duration, bool) {
	key := string(ds.UID) + "/" + fmt.Sprint(ds.Status.ObservedGeneration) + "/" + node
	now := c.clock.Now()
	if c.failedBackoff.IsInBackOffSinceUpdate(key, now) {
		return c.failedBackoff.Get(key), false
	}
	c.failedBackoff.Next(key, now)
	return 0, true
}

func allowsSurge(ds *appsv1.DaemonSet) bool {
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	if ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType || ru == nil || ru.MaxSurge == nil {
		return false
	}
	v, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxSurge, 1, true)
	return err == nil && v > 0
}

// syncNodes deletes the named Pods and creates one Pod per named node,
// raising expectations first so a lagging cache does not repeat them.
func (c *Controller) syncNodes(ctx context.Context, ds *appsv1.DaemonSet, del, create []string, hash string) error {
	key, _ := cache.MetaNamespaceKeyFunc(ds)
	c.expectations.ExpectCounts(key, len(create), len(del))
	var firstErr error
	for _, node := range create {
		pod, err := podForNode(ds, hash, node)
		if err == nil {
			_, err = c.podControl.Create(ctx, ds.Namespace, pod, ds)
		}
		if err != nil {
			c.expectations.Observed(key, 1, 0)
			if !apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
				firstErr = cmpErr(firstErr, err)
			}
		}
	}
	for _, name := range del {
		if err := c.podControl.DeletePod(ctx, ds.Namespace, name, ds); err != nil {
			c.expectations.Observed(key, 0, 1)
			if !apierrors.IsNotFound(err) {
				firstErr = cmpErr(firstErr, err)
			}
		}
	}
	return firstErr
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// budgets are maxSurge and maxUnavailable scaled to the nodes that
// should run a Pod (both rounding up, maxUnavailable 1 when both are 0).
func budgets(ds *appsv1.DaemonSet, desired int) (surge, unavailable int, err error) {
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	if ru != nil && ru.MaxSurge != nil {
		if surge, err = intstr.GetScaledValueFromIntOrPercent(ru.MaxSurge, desired, true); err != nil {
			return 0, 0, err
		}
	}
	if ru != nil && ru.MaxUnavailable != nil {
		if unavailable, err = intstr.GetScaledValueFromIntOrPercent(ru.MaxUnavailable, desired, true); err != nil {
			return 0, 0, err
		}
	}
	if desired > 0 && surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return surge, unavailable, nil
}
