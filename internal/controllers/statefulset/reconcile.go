package statefulset

import (
	"context"
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kapi-dev/kapi/internal/controllers/podcontrol"
)

// plan is one sync's view of a set: the versions of the set at the
// current and update revisions, its wanted replicas (nil where no Pod
// exists yet) and the Pods outside the ordinal range.
type plan struct {
	set, currentSet, updateSet *appsv1.StatefulSet
	current, update            *appsv1.ControllerRevision
	replicas                   []*corev1.Pod
	condemned                  []*corev1.Pod
	monotonic                  bool
	status                     *appsv1.StatefulSetStatus
}

// reconcile is upstream's updateStatefulSet: it computes the status
// from the Pods, then creates, replaces, deletes and updates Pods, in
// ordinal order and waiting for each under OrderedReady.
func (c *Controller) reconcile(ctx context.Context, set *appsv1.StatefulSet, pods []*corev1.Pod, current, update *appsv1.ControllerRevision, collisions int32) (*appsv1.StatefulSetStatus, error) {
	p := &plan{set: set, current: current, update: update,
		monotonic: set.Spec.PodManagementPolicy != appsv1.ParallelPodManagement}
	var err error
	if p.currentSet, err = applyRevision(set, current); err != nil {
		return nil, err
	}
	if p.updateSet, err = applyRevision(set, update); err != nil {
		return nil, err
	}
	p.status = c.computeStatus(set, pods, current, update)
	p.status.CollisionCount = &collisions
	if set.DeletionTimestamp != nil {
		return p.status, nil
	}
	start, n := startOrdinal(set), replicasOf(set)
	p.replicas = make([]*corev1.Pod, n)
	for _, pod := range pods {
		if o := ordinalOf(pod); o >= start && o < start+n {
			p.replicas[o-start] = pod
		} else if o >= 0 {
			p.condemned = append(p.condemned, pod)
		}
	}
	sort.Slice(p.condemned, func(i, j int) bool { return ordinalOf(p.condemned[i]) > ordinalOf(p.condemned[j]) })
	for i := range p.replicas {
		if p.replicas[i] == nil {
			p.replicas[i] = p.newVersionedPod(start + i)
		}
	}
	firstUnhealthy := p.firstUnhealthy()
	for i := range p.replicas {
		if stop, err := c.processReplica(ctx, p, i); stop || err != nil {
			return p.status, err
		}
	}
	for _, pod := range p.condemned {
		if stop, err := c.processCondemned(ctx, p, pod, firstUnhealthy); stop || err != nil {
			return p.status, err
		}
	}
	if set.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
		return p.status, nil
	}
	return p.status, c.rollingUpdate(ctx, p)
}

// newVersionedPod is the Pod for a missing ordinal: at the current
// revision below the partition (or below currentReplicas without a
// rollingUpdate block), at the update revision otherwise.
func (p *plan) newVersionedPod(ordinal int) *corev1.Pod {
	cs := p.currentSet
	start := startOrdinal(cs)
	if cs.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType &&
		(cs.Spec.UpdateStrategy.RollingUpdate == nil && ordinal < start+int(cs.Status.CurrentReplicas)) ||
		(cs.Spec.UpdateStrategy.RollingUpdate != nil && cs.Spec.UpdateStrategy.RollingUpdate.Partition != nil &&
			ordinal < start+int(*cs.Spec.UpdateStrategy.RollingUpdate.Partition)) {
		return newPod(cs, ordinal, p.current.Name)
	}
	return newPod(p.updateSet, ordinal, p.update.Name)
}

func (p *plan) firstUnhealthy() *corev1.Pod {
	for _, pod := range p.replicas {
		if !isHealthy(pod) {
			return pod
		}
	}
	for _, pod := range p.condemned {
		if !isHealthy(pod) {
			return pod
		}
	}
	return nil
}

// computeStatus counts the Pods as upstream's computeReplicaStatus.
func (c *Controller) computeStatus(set *appsv1.StatefulSet, pods []*corev1.Pod, current, update *appsv1.ControllerRevision) *appsv1.StatefulSetStatus {
	s := &appsv1.StatefulSetStatus{
		ObservedGeneration: set.Generation,
		CurrentRevision:    current.Name,
		UpdateRevision:     update.Name,
		Conditions:         set.Status.Conditions,
	}
	for _, pod := range pods {
		if isCreated(pod) {
			s.Replicas++
		}
		if isRunningAndReady(pod) {
			s.ReadyReplicas++
			if podcontrol.IsAvailable(pod, set.Spec.MinReadySeconds, c.clock.Now()) {
				s.AvailableReplicas++
			}
		}
		if isCreated(pod) && !isTerminating(pod) {
			switch revisionOf(pod) {
			case current.Name:
				s.CurrentReplicas++
				if current.Name == update.Name {
					s.UpdatedReplicas++
				}
			case update.Name:
				s.UpdatedReplicas++
			}
		}
	}
	return s
}

// processReplica handles the Pod of one wanted ordinal; stop says the
// sync can go no further now.
func (c *Controller) processReplica(ctx context.Context, p *plan, i int) (stop bool, err error) {
	pod := p.replicas[i]
	if isFailed(pod) || isSucceeded(pod) {
		if isFailed(pod) {
			c.recorder.Eventf(p.set, pod, corev1.EventTypeWarning, "RecreatingFailedPod", "Recreate",
				"StatefulSet %s/%s is recreating failed Pod %s", p.set.Namespace, p.set.Name, pod.Name)
		} else {
			c.recorder.Eventf(p.set, pod, corev1.EventTypeNormal, "RecreatingTerminatedPod", "Recreate",
				"StatefulSet %s/%s is recreating terminated Pod %s", p.set.Namespace, p.set.Name, pod.Name)
		}
		if !isTerminating(pod) {
			if err := c.deletePod(ctx, p.set, pod); err != nil {
				return true, err
			}
		}
		return true, nil // the replacement comes once the Pod is gone
	}
	if !isCreated(pod) {
		if err := c.createPod(ctx, p.set, pod); err != nil {
			return true, err
		}
		p.status.Replicas++
		if revisionOf(pod) == p.current.Name {
			p.status.CurrentReplicas++
		}
		if revisionOf(pod) == p.update.Name {
			p.status.UpdatedReplicas++
		}
		return p.monotonic, nil
	}
	if p.monotonic && (isTerminating(pod) || !isRunningAndReady(pod) || !podcontrol.IsAvailable(pod, p.set.Spec.MinReadySeconds, c.clock.Now())) {
		return true, nil
	}
	if err := c.fixClaims(ctx, p.set, pod); err != nil {
		return true, err
	}
	if identityMatches(pod) {
		return false, nil
	}
	fixed := pod.DeepCopy()
	setIdentity(fixed, ordinalOf(fixed))
	if _, err := c.client.CoreV1().Pods(fixed.Namespace).Update(ctx, fixed, metav1.UpdateOptions{}); err != nil {
		c.recorder.Eventf(p.set, fixed, corev1.EventTypeWarning, "FailedUpdate", "Update", "update Pod %s in StatefulSet %s failed error: %v", fixed.Name, p.set.Name, err)
		return true, err
	}
	return false, nil
}

// processCondemned deletes a Pod past the wanted ordinals, highest
// first; under OrderedReady only when every other Pod is healthy.
func (c *Controller) processCondemned(ctx context.Context, p *plan, pod, firstUnhealthy *corev1.Pod) (stop bool, err error) {
	if isTerminating(pod) {
		return p.monotonic, nil
	}
	if p.monotonic && pod != firstUnhealthy &&
		(!isRunningAndReady(pod) || !podcontrol.IsAvailable(pod, p.set.Spec.MinReadySeconds, c.clock.Now())) {
		return true, nil
	}
	if err := c.fixClaims(ctx, p.set, pod); err != nil {
		return true, err
	}
	if err := c.deletePod(ctx, p.set, pod); err != nil {
		return true, err
	}
	return p.monotonic, nil
}

// rollingUpdate deletes Pods not at the update revision, highest ordinal
// first down to the partition, at most maxUnavailable unavailable at
// once (upstream's MaxUnavailableStatefulSet path, default 1).
func (c *Controller) rollingUpdate(ctx context.Context, p *plan) error {
	minIndex := 0
	maxUnavailable := 1
	if ru := p.set.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		if ru.Partition != nil {
			minIndex = int(*ru.Partition)
		}
		if ru.MaxUnavailable != nil {
			v, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(ru.MaxUnavailable, intstr.FromInt32(1)), len(p.replicas), false)
			if err != nil {
				return err
			}
			maxUnavailable = max(v, 1)
		}
	}
	unavailable := 0
	for _, pod := range p.replicas {
		if !isHealthy(pod) || !podcontrol.IsAvailable(pod, p.set.Spec.MinReadySeconds, c.clock.Now()) {
			unavailable++
		}
	}
	budget := maxUnavailable - unavailable
	for i := len(p.replicas) - 1; i >= minIndex && budget > 0; i-- {
		pod := p.replicas[i]
		if revisionOf(pod) == p.update.Name || isTerminating(pod) {
			continue
		}
		if err := c.deletePod(ctx, p.set, pod); err != nil {
			return err
		}
		if revisionOf(pod) == p.current.Name {
			p.status.CurrentReplicas--
		}
		budget--
	}
	return nil
}

func (c *Controller) createPod(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) error {
	if err := c.createClaims(ctx, set, pod); err != nil {
		c.recordPod(set, pod, "Create", err)
		return err
	}
	_, err := c.client.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return err // the cache is behind; the next sync sees the Pod
	}
	c.recordPod(set, pod, "Create", err)
	return err
}

func (c *Controller) deletePod(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) error {
	err := c.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	c.recordPod(set, pod, "Delete", err)
	return err
}

// recordPod reports a Pod create or delete as upstream words it.
func (c *Controller) recordPod(set *appsv1.StatefulSet, pod *corev1.Pod, verb string, err error) {
	lower := map[string]string{"Create": "create", "Delete": "delete"}[verb]
	if err == nil {
		c.recorder.Eventf(set, pod, corev1.EventTypeNormal, "Successful"+verb, verb,
			"%s Pod %s in StatefulSet %s successful", lower, pod.Name, set.Name)
		return
	}
	c.recorder.Eventf(set, pod, corev1.EventTypeWarning, "Failed"+verb, verb,
		"%s Pod %s in StatefulSet %s failed error: %v", lower, pod.Name, set.Name, err)
}

// createClaims creates the Pod's missing PVCs, owned as the retention
// policy says; a claim being deleted blocks the Pod, as upstream.
func (c *Controller) createClaims(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) error {
	for _, claim := range sortedClaims(claimsFor(set, ordinalOf(pod))) {
		existing, err := c.claims.PersistentVolumeClaims(claim.Namespace).Get(claim.Name)
		switch {
		case apierrors.IsNotFound(err):
			fixClaimOwners(&claim, set, pod)
			_, err := c.client.CoreV1().PersistentVolumeClaims(claim.Namespace).Create(ctx, &claim, metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				c.recorder.Eventf(set, &claim, corev1.EventTypeWarning, "FailedCreate", "Create",
					"create Claim %s for Pod %s in StatefulSet %s failed error: %v", claim.Name, pod.Name, set.Name, err)
				return err
			}
			if err == nil {
				c.recorder.Eventf(set, &claim, corev1.EventTypeNormal, "SuccessfulCreate", "Create",
					"create Claim %s Pod %s in StatefulSet %s success", claim.Name, pod.Name, set.Name)
			}
		case err != nil:
			return err
		case existing.DeletionTimestamp != nil:
			return fmt.Errorf("pvc %s is being deleted", claim.Name)
		}
	}
	return nil
}

// fixClaims brings the owner references of an existing Pod's claims in
// line with the retention policy.
func (c *Controller) fixClaims(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) error {
	for _, want := range sortedClaims(claimsFor(set, ordinalOf(pod))) {
		existing, err := c.claims.PersistentVolumeClaims(want.Namespace).Get(want.Name)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		claim := existing.DeepCopy()
		if !fixClaimOwners(claim, set, pod) {
			continue
		}
		if _, err := c.client.CoreV1().PersistentVolumeClaims(claim.Namespace).Update(ctx, claim, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	return nil
}

func sortedClaims(m map[string]corev1.PersistentVolumeClaim) []corev1.PersistentVolumeClaim {
	out := make([]corev1.PersistentVolumeClaim, 0, len(m))
	for _, c := range m {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
