package replicaset

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/controllers/podcontrol"
)

// sync brings one owner's Pods to spec.replicas, unless its own earlier
// creates and deletes are not observed yet, and always writes status.
func (c *Controller) sync(ctx context.Context, k string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(k)
	if err != nil {
		return nil
	}
	rs, err := c.kind.get(ns, name)
	if apierrors.IsNotFound(err) {
		c.expectations.Delete(k)
		return nil
	}
	if err != nil {
		return err
	}
	needsSync := c.expectations.Satisfied(k)
	selector, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		return nil // validation refuses it; nothing to retry
	}
	// Every Pod of the namespace: a Pod that strayed from the selector
	// still carries our controllerRef and must be released.
	all, err := c.podLister.Pods(ns).List(labels.Everything())
	if err != nil {
		return err
	}
	active, err := c.claimPods(ctx, rs, selector, podcontrol.Filter(all, podcontrol.IsActive))
	if err != nil {
		return err
	}
	var terminating []*corev1.Pod
	if c.kind.terminating {
		terminating = podcontrol.Filter(all, func(p *corev1.Pod) bool {
			ref := metav1.GetControllerOfNoCopy(p)
			return podcontrol.IsTerminating(p) && ref != nil && ref.UID == rs.UID && selector.Matches(labels.Set(p.Labels))
		})
	}
	var manageErr error
	if needsSync && rs.DeletionTimestamp == nil {
		manageErr = c.manageReplicas(ctx, active, rs)
	}
	rs = rs.DeepCopy()
	status := calculateStatus(rs, active, terminating, c.kind.terminating, manageErr, c.clock.Now())
	updated, err := c.updateStatus(ctx, rs, status)
	if err != nil {
		return err
	}
	// A last look once the ready Pods should have become available.
	if manageErr == nil && updated.Spec.MinReadySeconds > 0 &&
		updated.Status.ReadyReplicas == replicas(updated) && updated.Status.AvailableReplicas != replicas(updated) {
		c.queue.AddAfter(k, time.Duration(updated.Spec.MinReadySeconds)*time.Second)
	}
	return manageErr
}

func replicas(rs *appsv1.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}

func (c *Controller) claimPods(ctx context.Context, rs *appsv1.ReplicaSet, selector labels.Selector, pods []*corev1.Pod) ([]*corev1.Pod, error) {
	m := &podcontrol.RefManager{
		Owner: rs, OwnerGVK: c.kind.gvk, Selector: selector,
		CanAdopt: podcontrol.RecheckDeletion(func(ctx context.Context) (metav1.Object, error) {
			return c.kind.getFresh(ctx, rs.Namespace, rs.Name)
		}, c.kind.gvk.Kind, rs),
	}
	return podcontrol.ClaimPods(ctx, m, c.pods, pods)
}

// manageReplicas creates or deletes at most burst Pods toward
// spec.replicas, recording expectations first.
func (c *Controller) manageReplicas(ctx context.Context, pods []*corev1.Pod, rs *appsv1.ReplicaSet) error {
	diff := len(pods) - int(replicas(rs))
	k := key(rs)
	if diff < 0 {
		diff = min(-diff, c.burst)
		c.expectations.ExpectCreations(k, diff)
		ref := podcontrol.NewControllerRef(rs, c.kind.gvk)
		ok, err := podcontrol.SlowStartBatch(diff, podcontrol.SlowStartInitialBatchSize, func() error {
			_, err := c.pods.CreatePod(ctx, rs.Namespace, &rs.Spec.Template, c.eventOwner(rs), ref)
			if err != nil && apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
				return nil // every create fails until the namespace is gone
			}
			return err
		})
		// Creates never attempted will never be observed.
		for range diff - ok {
			c.expectations.CreationObserved(k)
		}
		return err
	}
	if diff == 0 {
		return nil
	}
	diff = min(diff, c.burst)
	victims := podsToDelete(pods, c.relatedPods(rs), diff, c.clock.Now())
	podKeys := make([]string, len(victims))
	for i, p := range victims {
		podKeys[i] = podcontrol.PodKey(p)
	}
	c.expectations.ExpectDeletions(k, podKeys)
	var wg sync.WaitGroup
	errs := make([]error, len(victims))
	for i, p := range victims {
		wg.Go(func() {
			if err := c.pods.DeletePod(ctx, rs.Namespace, p.Name, c.eventOwner(rs)); err != nil {
				// This delete will never be observed.
				c.expectations.DeletionObserved(k, podcontrol.PodKey(p))
				if !apierrors.IsNotFound(err) {
					errs[i] = err
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err // they are likely all the same; report one
		}
	}
	return nil
}

// eventOwner is the object events are recorded on: the RC itself for
// a converted RC.
func (c *Controller) eventOwner(rs *appsv1.ReplicaSet) ownerObject {
	return c.kind.original(rs)
}

// podsToDelete picks diff Pods, the least established first.
func podsToDelete(pods, related []*corev1.Pod, diff int, now time.Time) []*corev1.Pod {
	pods = append([]*corev1.Pod(nil), pods...)
	if diff < len(pods) {
		onNode := map[string]int{}
		for _, p := range related {
			if podcontrol.IsActive(p) {
				onNode[p.Spec.NodeName]++
			}
		}
		rank := make([]int, len(pods))
		for i, p := range pods {
			rank[i] = onNode[p.Spec.NodeName]
		}
		sort.Sort(podcontrol.RankedPods{Pods: pods, Rank: rank, Now: now})
	}
	return pods[:diff]
}

// relatedPods are the Pods of every ReplicaSet with the same controller
// as rs (a Deployment's), to spread scale-down across nodes.
func (c *Controller) relatedPods(rs *appsv1.ReplicaSet) []*corev1.Pod {
	ref := metav1.GetControllerOfNoCopy(rs)
	owners := []*appsv1.ReplicaSet{rs}
	if ref != nil {
		all, _ := c.kind.list(rs.Namespace)
		owners = nil
		for _, o := range all {
			if r := metav1.GetControllerOfNoCopy(o); r != nil && r.UID == ref.UID {
				owners = append(owners, o)
			}
		}
	}
	seen := map[string]bool{}
	var out []*corev1.Pod
	for _, o := range owners {
		sel, err := metav1.LabelSelectorAsSelector(o.Spec.Selector)
		if err != nil {
			continue
		}
		pods, _ := c.podLister.Pods(o.Namespace).List(sel)
		for _, p := range pods {
			if !seen[string(p.UID)] {
				seen[string(p.UID)] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// calculateStatus counts the owner's Pods; a failed create or delete
// sets ReplicaFailure, a clean sync removes it.
func calculateStatus(rs *appsv1.ReplicaSet, active, terminating []*corev1.Pod, withTerminating bool, manageErr error, now time.Time) appsv1.ReplicaSetStatus {
	status := rs.Status
	templateLabels := labels.Set(rs.Spec.Template.Labels).AsSelectorPreValidated()
	var fully, ready, available int32
	for _, p := range active {
		if templateLabels.Matches(labels.Set(p.Labels)) {
			fully++
		}
		if podcontrol.IsReady(p) {
			ready++
			if podcontrol.IsAvailable(p, rs.Spec.MinReadySeconds, now) {
				available++
			}
		}
	}
	failure := getCondition(status, appsv1.ReplicaSetReplicaFailure)
	switch {
	case manageErr != nil && failure == nil:
		reason := ""
		if diff := len(active) - int(replicas(rs)); diff < 0 {
			reason = "FailedCreate"
		} else if diff > 0 {
			reason = "FailedDelete"
		}
		status.Conditions = append(status.Conditions, appsv1.ReplicaSetCondition{
			Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(now), Reason: reason, Message: manageErr.Error(),
		})
	case manageErr == nil && failure != nil:
		var kept []appsv1.ReplicaSetCondition
		for _, cond := range status.Conditions {
			if cond.Type != appsv1.ReplicaSetReplicaFailure {
				kept = append(kept, cond)
			}
		}
		status.Conditions = kept
	}
	status.Replicas = int32(len(active))
	status.FullyLabeledReplicas = fully
	status.ReadyReplicas = ready
	status.AvailableReplicas = available
	status.TerminatingReplicas = nil
	if withTerminating {
		n := int32(len(terminating))
		status.TerminatingReplicas = &n
	}
	return status
}

func getCondition(status appsv1.ReplicaSetStatus, t appsv1.ReplicaSetConditionType) *appsv1.ReplicaSetCondition {
	for i := range status.Conditions {
		if status.Conditions[i].Type == t {
			return &status.Conditions[i]
		}
	}
	return nil
}

// updateStatus writes status with observedGeneration unless nothing
// changed, retrying once on a fresh copy.
func (c *Controller) updateStatus(ctx context.Context, rs *appsv1.ReplicaSet, status appsv1.ReplicaSetStatus) (*appsv1.ReplicaSet, error) {
	status.ObservedGeneration = rs.Generation
	if statusEqual(rs.Status, status) {
		return rs, nil
	}
	var lastErr error
	for i := 0; i < 2; i++ {
		rs.Status = status
		updated, err := c.kind.updateStatus(ctx, rs)
		if err == nil {
			return updated, nil
		}
		lastErr = err
		fresh, gerr := c.kind.getFresh(ctx, rs.Namespace, rs.Name)
		if gerr != nil {
			return nil, gerr
		}
		rs = fresh
		status.ObservedGeneration = rs.Generation
	}
	return nil, fmt.Errorf("updating status of %s %s: %w", c.kind.gvk.Kind, key(rs), lastErr)
}

func statusEqual(a, b appsv1.ReplicaSetStatus) bool {
	if a.Replicas != b.Replicas || a.FullyLabeledReplicas != b.FullyLabeledReplicas || a.ReadyReplicas != b.ReadyReplicas ||
		a.AvailableReplicas != b.AvailableReplicas || a.ObservedGeneration != b.ObservedGeneration || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	if (a.TerminatingReplicas == nil) != (b.TerminatingReplicas == nil) || (a.TerminatingReplicas != nil && *a.TerminatingReplicas != *b.TerminatingReplicas) {
		return false
	}
	for i := range a.Conditions {
		x, y := a.Conditions[i], b.Conditions[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message {
			return false
		}
	}
	return true
}
