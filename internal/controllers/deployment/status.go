package deployment

import (
	"context"
	"fmt"
	"reflect"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// calculateStatus counts the ReplicaSets' Pods and sets Available.
func (c *Controller) calculateStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) appsv1.DeploymentStatus {
	available := statusSum(allRSs, availableReplicas)
	unavailable := max(specReplicas(allRSs)-available, 0)
	status := appsv1.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            statusSum(allRSs, actualReplicas),
		UpdatedReplicas:     statusSum([]*appsv1.ReplicaSet{newRS}, actualReplicas),
		ReadyReplicas:       statusSum(allRSs, readyReplicas),
		AvailableReplicas:   available,
		UnavailableReplicas: unavailable,
		TerminatingReplicas: terminatingReplicas(allRSs),
		CollisionCount:      d.Status.CollisionCount,
	}
	status.Conditions = append(status.Conditions, d.Status.Conditions...)
	if available >= desired(d)-maxUnavailable(d) {
		setCondition(&status, newCondition(appsv1.DeploymentAvailable, corev1.ConditionTrue, MinimumReplicasAvailable, "Deployment has minimum availability.", c.clock.Now()))
	} else {
		setCondition(&status, newCondition(appsv1.DeploymentAvailable, corev1.ConditionFalse, MinimumReplicasUnavailable, "Deployment does not have minimum availability.", c.clock.Now()))
	}
	return status
}

// deploymentComplete: every desired replica is updated and available and
// the latest generation was observed.
func deploymentComplete(d *appsv1.Deployment, s *appsv1.DeploymentStatus) bool {
	n := desired(d)
	return s.UpdatedReplicas == n && s.Replicas == n && s.AvailableReplicas == n && s.ObservedGeneration >= d.Generation
}

// deploymentProgressing: more updated, ready or available Pods, or fewer
// old ones, than the last status said.
func deploymentProgressing(d *appsv1.Deployment, s *appsv1.DeploymentStatus) bool {
	old := d.Status
	return s.UpdatedReplicas > old.UpdatedReplicas ||
		s.Replicas-s.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||
		s.ReadyReplicas > old.ReadyReplicas || s.AvailableReplicas > old.AvailableReplicas
}

// timedOut: no progress for progressDeadlineSeconds since the
// Progressing condition was last updated.
func (c *Controller) timedOut(d *appsv1.Deployment, s *appsv1.DeploymentStatus) bool {
	if !hasProgressDeadline(d) {
		return false
	}
	cond := getCondition(*s, appsv1.DeploymentProgressing)
	switch {
	case cond == nil, cond.Reason == NewRSAvailableReason:
		return false
	case cond.Reason == TimedOutReason:
		return true
	}
	deadline := cond.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second)
	return deadline.Before(c.clock.Now())
}

// rsName names the new ReplicaSet in messages, or the Deployment.
func progressSubject(d *appsv1.Deployment, newRS *appsv1.ReplicaSet) string {
	if newRS != nil {
		return fmt.Sprintf("ReplicaSet %q", newRS.Name)
	}
	return fmt.Sprintf("Deployment %q", d.Name)
}

// syncRolloutStatus is syncStatus during a rollout: it also moves the
// Progressing condition (complete, progressing, timed out) and copies a
// ReplicaSet's ReplicaFailure.
func (c *Controller) syncRolloutStatus(ctx context.Context, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) error {
	s := c.calculateStatus(allRSs, newRS, d)
	if !hasProgressDeadline(d) {
		removeCondition(&s, appsv1.DeploymentProgressing)
	}
	cur := getCondition(d.Status, appsv1.DeploymentProgressing)
	complete := s.Replicas == s.UpdatedReplicas && cur != nil && cur.Reason == NewRSAvailableReason
	if hasProgressDeadline(d) && !complete {
		now := c.clock.Now()
		switch {
		case deploymentComplete(d, &s):
			setCondition(&s, newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, NewRSAvailableReason, progressSubject(d, newRS)+" has successfully progressed.", now))
		case deploymentProgressing(d, &s):
			// Progress refreshes lastUpdateTime even with the same reason.
			cond := newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReplicaSetUpdatedReason, progressSubject(d, newRS)+" is progressing.", now)
			if cur != nil {
				if cur.Status == corev1.ConditionTrue {
					cond.LastTransitionTime = cur.LastTransitionTime
				}
				removeCondition(&s, appsv1.DeploymentProgressing)
			}
			setCondition(&s, cond)
		case c.timedOut(d, &s):
			setCondition(&s, newCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, TimedOutReason, progressSubject(d, newRS)+" has timed out progressing.", now))
		}
	}
	if f := replicaFailure(allRSs, newRS); f != nil {
		setCondition(&s, *f)
	} else {
		removeCondition(&s, appsv1.DeploymentReplicaFailure)
	}
	if reflect.DeepEqual(d.Status, s) {
		c.requeueStuck(d, s)
		return nil
	}
	d.Status = s
	return c.updateStatus(ctx, d)
}

// replicaFailure is the new ReplicaSet's ReplicaFailure condition, else
// the first old one's, as a Deployment condition.
func replicaFailure(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) *appsv1.DeploymentCondition {
	ordered := append([]*appsv1.ReplicaSet{newRS}, allRSs...)
	for _, rs := range ordered {
		if rs == nil {
			continue
		}
		for _, cond := range rs.Status.Conditions {
			if cond.Type == appsv1.ReplicaSetReplicaFailure {
				return &appsv1.DeploymentCondition{
					Type: appsv1.DeploymentReplicaFailure, Status: cond.Status, Reason: cond.Reason, Message: cond.Message,
					LastUpdateTime: cond.LastTransitionTime, LastTransitionTime: cond.LastTransitionTime,
				}
			}
		}
	}
	return nil
}

// requeueStuck looks again when the progress deadline of a rollout that
// made no progress will pass.
func (c *Controller) requeueStuck(d *appsv1.Deployment, s appsv1.DeploymentStatus) {
	cur := getCondition(d.Status, appsv1.DeploymentProgressing)
	if !hasProgressDeadline(d) || cur == nil || deploymentComplete(d, &s) || cur.Reason == TimedOutReason {
		return
	}
	after := cur.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second).Sub(c.clock.Now())
	if after < time.Second {
		c.queue.AddRateLimited(dKey(d))
		return
	}
	c.queue.AddAfter(dKey(d), after)
}
