package deployment

import (
	"context"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// rolloutRolling grows the new ReplicaSet within maxSurge, then shrinks
// old ones within maxUnavailable, one step per sync.
func (c *Controller) rolloutRolling(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := c.allReplicaSets(ctx, d, rsList, true)
	if err != nil {
		return err
	}
	allRSs := append(slices.Clone(oldRSs), newRS)
	scaledUp, err := c.reconcileNewReplicaSet(ctx, allRSs, newRS, d)
	if err != nil {
		return err
	}
	if scaledUp {
		return c.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	scaledDown, err := c.reconcileOldReplicaSets(ctx, allRSs, active(oldRSs), newRS, d)
	if err != nil {
		return err
	}
	if scaledDown {
		return c.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	if deploymentComplete(d, &d.Status) {
		if err := c.cleanup(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return c.syncRolloutStatus(ctx, allRSs, newRS, d)
}

func (c *Controller) reconcileNewReplicaSet(ctx context.Context, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) (bool, error) {
	if replicasOf(newRS) == desired(d) {
		return false, nil
	}
	target := desired(d)
	if replicasOf(newRS) < desired(d) {
		target = newRSReplicas(d, allRSs, newRS)
	}
	scaled, _, err := c.scaleReplicaSet(ctx, newRS, target, d)
	return scaled, err
}

// reconcileOldReplicaSets scales old ReplicaSets down as far as the
// available Pods allow: unhealthy replicas first, then healthy ones.
func (c *Controller) reconcileOldReplicaSets(ctx context.Context, allRSs, oldRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) (bool, error) {
	if specReplicas(oldRSs) == 0 {
		return false, nil
	}
	minAvailable := desired(d) - maxUnavailable(d)
	newUnavailable := replicasOf(newRS) - newRS.Status.AvailableReplicas
	maxScaledDown := specReplicas(allRSs) - minAvailable - newUnavailable
	if maxScaledDown <= 0 {
		return false, nil
	}
	oldRSs, cleaned, err := c.cleanupUnhealthyReplicas(ctx, oldRSs, d, maxScaledDown)
	if err != nil {
		return false, err
	}
	scaledDown, err := c.scaleDownOldForRollingUpdate(ctx, append(slices.Clone(oldRSs), newRS), oldRSs, d)
	if err != nil {
		return false, err
	}
	return cleaned+scaledDown > 0, nil
}

func (c *Controller) cleanupUnhealthyReplicas(ctx context.Context, oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment, maxCleanup int32) ([]*appsv1.ReplicaSet, int32, error) {
	sortByCreation(oldRSs)
	var total int32
	for i, rs := range oldRSs {
		if total >= maxCleanup {
			break
		}
		if replicasOf(rs) == 0 || replicasOf(rs) == rs.Status.AvailableReplicas {
			continue
		}
		n := min(maxCleanup-total, replicasOf(rs)-rs.Status.AvailableReplicas)
		target := replicasOf(rs) - n
		if target > replicasOf(rs) {
			return nil, 0, fmt.Errorf("when cleaning up unhealthy replicas, got invalid request to scale down %s/%s %d -> %d", rs.Namespace, rs.Name, replicasOf(rs), target)
		}
		_, updated, err := c.scaleReplicaSet(ctx, rs, target, d)
		if err != nil {
			return nil, total, err
		}
		total += n
		oldRSs[i] = updated
	}
	return oldRSs, total, nil
}

func (c *Controller) scaleDownOldForRollingUpdate(ctx context.Context, allRSs, oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment) (int32, error) {
	minAvailable := desired(d) - maxUnavailable(d)
	availableNow := statusSum(allRSs, availableReplicas)
	if availableNow <= minAvailable {
		return 0, nil
	}
	sortByCreation(oldRSs)
	want := availableNow - minAvailable
	var total int32
	for _, rs := range oldRSs {
		if total >= want {
			break
		}
		if replicasOf(rs) == 0 {
			continue
		}
		n := min(replicasOf(rs), want-total)
		if _, _, err := c.scaleReplicaSet(ctx, rs, replicasOf(rs)-n, d); err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

func sortByCreation(rss []*appsv1.ReplicaSet) {
	slices.SortFunc(rss, func(a, b *appsv1.ReplicaSet) int {
		if byCreation(a, b) {
			return -1
		}
		if byCreation(b, a) {
			return 1
		}
		return 0
	})
}

// rolloutRecreate scales every old ReplicaSet to zero, waits until no
// old Pod runs, then creates and scales up the new one.
func (c *Controller) rolloutRecreate(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := c.allReplicaSets(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	allRSs := append(slices.Clone(oldRSs), newRS)
	scaledDown := false
	for _, rs := range active(oldRSs) {
		scaled, _, err := c.scaleReplicaSet(ctx, rs, 0, d)
		if err != nil {
			return err
		}
		scaledDown = scaledDown || scaled
	}
	if scaledDown {
		return c.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	running, err := c.oldPodsRunning(d, rsList, newRS, oldRSs)
	if err != nil {
		return err
	}
	if running {
		return c.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	if newRS == nil {
		if newRS, oldRSs, err = c.allReplicaSets(ctx, d, rsList, true); err != nil {
			return err
		}
		allRSs = append(slices.Clone(oldRSs), newRS)
	}
	if _, _, err := c.scaleReplicaSet(ctx, newRS, desired(d), d); err != nil {
		return err
	}
	if deploymentComplete(d, &d.Status) {
		if err := c.cleanup(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return c.syncRolloutStatus(ctx, allRSs, newRS, d)
}

// oldPodsRunning: an old ReplicaSet still reports Pods, or a Pod of one
// has not finished.
func (c *Controller) oldPodsRunning(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) (bool, error) {
	if statusSum(oldRSs, actualReplicas) > 0 {
		return true, nil
	}
	podMap, err := c.podsByReplicaSet(d, rsList)
	if err != nil {
		return false, err
	}
	for uid, pods := range podMap {
		if newRS != nil && newRS.UID == uid {
			continue
		}
		for _, p := range pods {
			if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
				return true, nil
			}
		}
	}
	return false, nil
}

// scaleReplicaSet resizes rs (and refreshes its replica annotations),
// recording ScalingReplicaSet when the size changed.
func (c *Controller) scaleReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet, target int32, d *appsv1.Deployment) (bool, *appsv1.ReplicaSet, error) {
	sizeChanges := replicasOf(rs) != target
	maxReplicas := desired(d) + maxSurge(d)
	if !sizeChanges && !replicasAnnotationsNeedUpdate(rs, desired(d), maxReplicas) {
		return false, rs, nil
	}
	from := replicasOf(rs)
	cp := rs.DeepCopy()
	cp.Spec.Replicas = &target
	setReplicasAnnotations(cp, desired(d), maxReplicas)
	updated, err := c.client.AppsV1().ReplicaSets(cp.Namespace).Update(ctx, cp, metav1.UpdateOptions{})
	if err != nil {
		return false, rs, err
	}
	if sizeChanges {
		op := "up"
		if target < from {
			op = "down"
		}
		c.recorder.Eventf(d, nil, corev1.EventTypeNormal, "ScalingReplicaSet", "Scale", "Scaled %s replica set %s from %d to %d", op, updated.Name, from, target)
	}
	return sizeChanges, updated, nil
}
