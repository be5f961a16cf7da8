package disruption

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/cache"
)

func (c *Controller) trySync(ctx context.Context, pdb *policyv1.PodDisruptionBudget) error {
	pods, err := c.podsFor(pdb)
	if err != nil {
		c.recorder.Eventf(pdb, nil, corev1.EventTypeWarning, "NoPods", "Sync", "Failed to get pods: %v", err)
		return err
	}
	if len(pods) == 0 {
		c.recorder.Eventf(pdb, nil, corev1.EventTypeNormal, "NoPods", "Sync", "No matching pods found")
	}
	expected, desired, unmanaged, err := c.expectedCount(ctx, pdb, pods)
	if err != nil {
		c.recorder.Eventf(pdb, nil, corev1.EventTypeWarning, "CalculateExpectedPodCountFailed", "Sync", "Failed to calculate the number of expected pods: %v", err)
		return err
	}
	if len(unmanaged) > 0 {
		c.recorder.Eventf(pdb, nil, corev1.EventTypeWarning, "UnmanagedPods", "Sync", "Pods selected by this PodDisruptionBudget (selector: %v) were found "+
			"to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. "+
			"To account for these pods please set \".spec.minAvailable\" "+
			"field of the PDB to an integer value.", pdb.Spec.Selector)
	}
	now := c.clock.Now()
	disrupted, recheck := c.disruptedPods(pods, pdb, now)
	healthy := countHealthy(pods, disrupted, now)
	if err := c.updateStatus(ctx, pdb, healthy, desired, expected, disrupted); err != nil {
		return err
	}
	if recheck != nil {
		key, _ := cache.MetaNamespaceKeyFunc(pdb)
		c.queue.AddAfter(key, recheck.Sub(now))
	}
	return nil
}

// podsFor lists the namespace's Pods the budget's selector matches (an
// empty selector matches all of them, a missing one none).
func (c *Controller) podsFor(pdb *policyv1.PodDisruptionBudget) ([]*corev1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		return nil, err
	}
	return c.pods.Pods(pdb.Namespace).List(sel)
}

// expectedCount is upstream's getExpectedPodCount: an integer
// minAvailable counts the selected Pods; a percentage or maxUnavailable
// needs the summed scale of their controllers.
func (c *Controller) expectedCount(ctx context.Context, pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod) (expected, desired int32, unmanaged []string, err error) {
	switch {
	case pdb.Spec.MaxUnavailable != nil:
		if expected, unmanaged, err = c.expectedScale(ctx, pods); err != nil {
			return
		}
		var mu int
		if mu, err = intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, int(expected), true); err != nil {
			return
		}
		desired = max(expected-int32(mu), 0)
	case pdb.Spec.MinAvailable != nil && pdb.Spec.MinAvailable.Type == intstr.Int:
		desired = pdb.Spec.MinAvailable.IntVal
		expected = int32(len(pods))
	case pdb.Spec.MinAvailable != nil:
		if expected, unmanaged, err = c.expectedScale(ctx, pods); err != nil {
			return
		}
		var ma int
		if ma, err = intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, int(expected), true); err != nil {
			return
		}
		desired = int32(ma)
	}
	return
}

// expectedScale sums the scale of the distinct controllers of pods;
// Pods without a controller are returned apart, a controller found
// nowhere is an error.
func (c *Controller) expectedScale(ctx context.Context, pods []*corev1.Pod) (int32, []string, error) {
	scales := map[types.UID]int32{}
	var unmanaged []string
	for _, pod := range pods {
		ref := metav1.GetControllerOf(pod)
		if ref == nil {
			unmanaged = append(unmanaged, pod.Name)
			continue
		}
		if _, seen := scales[ref.UID]; seen {
			continue
		}
		uid, n, found, err := c.findController(ctx, ref, pod.Namespace)
		if err != nil {
			return 0, nil, err
		}
		if !found {
			return 0, nil, fmt.Errorf("found no controllers for pod %q", pod.Name)
		}
		scales[uid] = n
	}
	var total int32
	for _, n := range scales {
		total += n
	}
	return total, unmanaged, nil
}

// findController tries upstream's finders in order: a
// ReplicationController, a ReplicaSet's Deployment, a ReplicaSet no
// Deployment controls, a StatefulSet, then any scale subresource.
func (c *Controller) findController(ctx context.Context, ref *metav1.OwnerReference, ns string) (types.UID, int32, bool, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return "", 0, false, err
	}
	switch {
	case ref.Kind == "ReplicationController" && gv.Group == "":
		if rc, err := c.rcs.ReplicationControllers(ns).Get(ref.Name); err == nil && rc.UID == ref.UID {
			return rc.UID, replicas(rc.Spec.Replicas), true, nil
		}
	case ref.Kind == "ReplicaSet" && (gv.Group == "apps" || gv.Group == "extensions"):
		rs, err := c.rss.ReplicaSets(ns).Get(ref.Name)
		if err != nil || rs.UID != ref.UID {
			break
		}
		owner := metav1.GetControllerOf(rs)
		if owner == nil || owner.Kind != "Deployment" {
			return rs.UID, replicas(rs.Spec.Replicas), true, nil
		}
		if ogv, err := schema.ParseGroupVersion(owner.APIVersion); err != nil || (ogv.Group != "apps" && ogv.Group != "extensions") {
			break
		}
		if d, err := c.deps.Deployments(ns).Get(owner.Name); err == nil && d.UID == owner.UID {
			return d.UID, replicas(d.Spec.Replicas), true, nil
		}
	case ref.Kind == "StatefulSet" && gv.Group == "apps":
		if s, err := c.sets.StatefulSets(ns).Get(ref.Name); err == nil && s.UID == ref.UID {
			return s.UID, replicas(s.Spec.Replicas), true, nil
		}
	}
	if c.scale == nil {
		return "", 0, false, nil
	}
	uid, n, found, err := c.scale(ctx, ref, ns)
	return types.UID(uid), n, found, err
}

func replicas(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

// disruptedPods keeps the entries of status.disruptedPods whose Pod
// still exists, is not being deleted and whose deadline has not passed;
// it returns the earliest remaining deadline to recheck at.
func (c *Controller) disruptedPods(pods []*corev1.Pod, pdb *policyv1.PodDisruptionBudget, now time.Time) (map[string]metav1.Time, *time.Time) {
	out := map[string]metav1.Time{}
	var recheck *time.Time
	if pdb.Status.DisruptedPods == nil {
		return out, nil
	}
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		at, ok := pdb.Status.DisruptedPods[pod.Name]
		if !ok {
			continue
		}
		deadline := at.Add(DeletionTimeout)
		if deadline.Before(now) {
			c.recorder.Eventf(pod, nil, corev1.EventTypeWarning, "NotDeleted", "Sync",
				"Pod was expected by PDB %s/%s to be deleted but it wasn't", pdb.Namespace, pdb.Name)
			continue
		}
		if recheck == nil || deadline.Before(*recheck) {
			recheck = &deadline
		}
		out[pod.Name] = at
	}
	return out, recheck
}

// countHealthy counts ready Pods not being deleted nor just disrupted.
func countHealthy(pods []*corev1.Pod, disrupted map[string]metav1.Time, now time.Time) int32 {
	var n int32
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		if at, ok := disrupted[pod.Name]; ok && at.Add(DeletionTimeout).After(now) {
			continue
		}
		if podReady(pod) {
			n++
		}
	}
	return n
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// updateStatus writes the new status when anything in it changed.
func (c *Controller) updateStatus(ctx context.Context, pdb *policyv1.PodDisruptionBudget, healthy, desired, expected int32, disrupted map[string]metav1.Time) error {
	allowed := healthy - desired
	if expected <= 0 || allowed <= 0 {
		allowed = 0
	}
	s := &pdb.Status
	if s.CurrentHealthy == healthy && s.DesiredHealthy == desired && s.ExpectedPods == expected &&
		s.DisruptionsAllowed == allowed && apiequality.Semantic.DeepEqual(s.DisruptedPods, disrupted) &&
		s.ObservedGeneration == pdb.Generation && conditionUpToDate(pdb) {
		return nil
	}
	n := pdb.DeepCopy()
	n.Status = policyv1.PodDisruptionBudgetStatus{
		CurrentHealthy: healthy, DesiredHealthy: desired, ExpectedPods: expected,
		DisruptionsAllowed: allowed, DisruptedPods: disrupted, ObservedGeneration: pdb.Generation,
		Conditions: n.Status.Conditions,
	}
	c.setAllowedCondition(n)
	return c.writeStatus(ctx, n)
}

// setAllowedCondition is DisruptionAllowed: True with SufficientPods
// when a disruption is allowed, False with InsufficientPods otherwise.
func (c *Controller) setAllowedCondition(pdb *policyv1.PodDisruptionBudget) {
	cond := metav1.Condition{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse,
		Reason: policyv1.InsufficientPodsReason, ObservedGeneration: pdb.Status.ObservedGeneration,
		LastTransitionTime: metav1.NewTime(c.clock.Now())}
	if pdb.Status.DisruptionsAllowed > 0 {
		cond.Status, cond.Reason = metav1.ConditionTrue, policyv1.SufficientPodsReason
	}
	if pdb.Status.Conditions == nil {
		pdb.Status.Conditions = []metav1.Condition{}
	}
	apimeta.SetStatusCondition(&pdb.Status.Conditions, cond)
}

func conditionUpToDate(pdb *policyv1.PodDisruptionBudget) bool {
	cond := apimeta.FindStatusCondition(pdb.Status.Conditions, policyv1.DisruptionAllowedCondition)
	if cond == nil || pdb.Status.ObservedGeneration != pdb.Generation {
		return false
	}
	if pdb.Status.DisruptionsAllowed > 0 {
		return cond.Status == metav1.ConditionTrue && cond.Reason == policyv1.SufficientPodsReason
	}
	return cond.Status == metav1.ConditionFalse && cond.Reason == policyv1.InsufficientPodsReason
}

// failSafe allows no disruption and says why in a SyncFailed condition.
func (c *Controller) failSafe(ctx context.Context, pdb *policyv1.PodDisruptionBudget, cause error) error {
	n := pdb.DeepCopy()
	n.Status.DisruptionsAllowed = 0
	if n.Status.Conditions == nil {
		n.Status.Conditions = []metav1.Condition{}
	}
	apimeta.SetStatusCondition(&n.Status.Conditions, metav1.Condition{
		Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse,
		Reason: policyv1.SyncFailedReason, Message: cause.Error(),
		ObservedGeneration: n.Status.ObservedGeneration, LastTransitionTime: metav1.NewTime(c.clock.Now()),
	})
	return c.writeStatus(ctx, n)
}

// staleDisruption: pod has a DisruptionTarget=True condition not set by
// the kubelet, is neither terminating nor terminal; after says how long
// until it counts as stale.
func (c *Controller) staleDisruption(pod *corev1.Pod) (bool, time.Duration) {
	if pod.DeletionTimestamp != nil || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return false, 0
	}
	for _, cond := range pod.Status.Conditions {
		if cond.Type != corev1.DisruptionTarget {
			continue
		}
		if cond.Status != corev1.ConditionTrue || cond.Reason == corev1.PodReasonTerminationByKubelet {
			return false, 0
		}
		return true, max(StalePodDisruptionTimeout-c.clock.Since(cond.LastTransitionTime.Time), 0)
	}
	return false, 0
}

// SyncStalePod resets a stale DisruptionTarget condition to False.
func (c *Controller) SyncStalePod(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pod, err := c.pods.Pods(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	has, after := c.staleDisruption(pod)
	if !has {
		return nil
	}
	if after > 0 {
		c.stale.AddAfter(key, after)
		return nil
	}
	n := pod.DeepCopy()
	for i := range n.Status.Conditions {
		cond := &n.Status.Conditions[i]
		if cond.Type == corev1.DisruptionTarget {
			cond.Status = corev1.ConditionFalse
			cond.Reason, cond.Message = "", ""
			cond.LastTransitionTime = metav1.NewTime(c.clock.Now())
		}
	}
	_, err = c.client.CoreV1().Pods(ns).UpdateStatus(ctx, n, metav1.UpdateOptions{})
	return err
}
