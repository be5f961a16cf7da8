package deployment

import (
	"context"
	"math"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
)

// scale resizes a Deployment's ReplicaSets for a new replica count
// without rolling: the only active (or newest) one takes it all, a
// saturated new one drains the old, otherwise a rolling Deployment
// spreads the difference proportionally to the ReplicaSets' sizes.
func (c *Controller) scale(ctx context.Context, d *appsv1.Deployment, newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) error {
	if rs := activeOrLatest(newRS, oldRSs); rs != nil {
		if replicasOf(rs) == desired(d) {
			return nil
		}
		_, _, err := c.scaleReplicaSet(ctx, rs, desired(d), d)
		return err
	}
	if isSaturated(d, newRS) {
		for _, old := range active(oldRSs) {
			if _, _, err := c.scaleReplicaSet(ctx, old, 0, d); err != nil {
				return err
			}
		}
		return nil
	}
	if !isRollingUpdate(d) {
		return nil
	}
	allRSs := active(append(slices.Clone(oldRSs), newRS))
	allowed := int32(0)
	if desired(d) > 0 {
		allowed = desired(d) + maxSurge(d)
	}
	toAdd := allowed - specReplicas(allRSs)
	// Larger first; among equals newer first when growing, older first
	// when shrinking.
	slices.SortFunc(allRSs, func(a, b *appsv1.ReplicaSet) int {
		if replicasOf(a) != replicasOf(b) {
			return int(replicasOf(b) - replicasOf(a))
		}
		if a == b {
			return 0
		}
		older := byCreation(a, b)
		if toAdd > 0 {
			older = byCreation(b, a)
		}
		if older {
			return -1
		}
		return 1
	})
	var added int32
	sizes := make([]int32, len(allRSs))
	for i, rs := range allRSs {
		sizes[i] = replicasOf(rs)
		if toAdd != 0 {
			p := proportion(rs, d, toAdd, added)
			sizes[i] += p
			added += p
		}
	}
	for i, rs := range allRSs {
		if i == 0 && toAdd != 0 {
			// Leftovers go to the largest ReplicaSet.
			sizes[0] = max(sizes[0]+toAdd-added, 0)
		}
		if _, _, err := c.scaleReplicaSet(ctx, rs, sizes[i], d); err != nil {
			return err
		}
	}
	return nil
}

// activeOrLatest is the only active ReplicaSet, or the newest when none
// is active; nil when several are.
func activeOrLatest(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	olds := slices.Clone(oldRSs)
	sortByCreation(olds)
	slices.Reverse(olds)
	all := active(append(olds, newRS))
	switch len(all) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return olds[0]
	case 1:
		return all[0]
	}
	return nil
}

// isSaturated: the new ReplicaSet runs the full, available count.
func isSaturated(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	want, ok := intAnnotation(rs, DesiredReplicasAnnotation)
	return ok && want == desired(d) && replicasOf(rs) == desired(d) && rs.Status.AvailableReplicas == desired(d)
}

// proportion is rs's share of toAdd, bounded by what is left to add.
func proportion(rs *appsv1.ReplicaSet, d *appsv1.Deployment, toAdd, added int32) int32 {
	if replicasOf(rs) == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	f := fraction(rs, d)
	allowed := toAdd - added
	if toAdd > 0 {
		return min(f, allowed)
	}
	return max(f, allowed)
}

// fraction scales rs by the Deployment's new maximum over the maximum it
// was sized for (max-replicas, else the last status).
func fraction(rs *appsv1.ReplicaSet, d *appsv1.Deployment) int32 {
	if desired(d) == 0 {
		return -replicasOf(rs)
	}
	newMax := desired(d) + maxSurge(d)
	before, ok := intAnnotation(rs, MaxReplicasAnnotation)
	if !ok || before == 0 {
		before = d.Status.Replicas
		if before == 0 {
			return 0
		}
	}
	size := float64(replicasOf(rs)*newMax) / float64(before)
	return int32(math.Round(size)) - replicasOf(rs)
}
