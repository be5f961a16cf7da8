package resourceclaim

import (
	"context"
	"fmt"
	"slices"

	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// syncClaim drops consumers that are gone or done from reservedFor,
// deallocates a claim whose last consumer went, lets a deleted unused
// claim go, and deletes a generated claim its Pod no longer needs.
func (c *Controller) syncClaim(ctx context.Context, ns, name string) error {
	claim, err := c.claims.ResourceClaims(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	valid, err := c.validConsumers(ctx, claim)
	if err != nil {
		return err
	}
	protected := slices.Contains(claim.Finalizers, resourceapi.Finalizer)
	switch {
	case len(valid) < len(claim.Status.ReservedFor):
		if err := c.release(ctx, claim, valid); err != nil {
			return err
		}
	case protected && claim.DeletionTimestamp != nil && len(valid) == 0:
		if err := c.unblockDeletion(ctx, claim); err != nil {
			return err
		}
	}
	if len(valid) == 0 {
		return c.deleteIfPodDone(ctx, claim)
	}
	return nil
}

// validConsumers is reservedFor without the Pods that are gone, replaced
// or done. Entries that are not Pods are kept: their owners remove them.
func (c *Controller) validConsumers(ctx context.Context, claim *resourceapi.ResourceClaim) ([]resourceapi.ResourceClaimConsumerReference, error) {
	valid := make([]resourceapi.ResourceClaimConsumerReference, 0, len(claim.Status.ReservedFor))
	for _, ref := range claim.Status.ReservedFor {
		if ref.APIGroup != "" || ref.Resource != "pods" {
			valid = append(valid, ref)
			continue
		}
		keep, err := c.podStillConsumes(ctx, claim.Namespace, ref)
		if err != nil {
			return nil, err
		}
		if keep {
			valid = append(valid, ref)
		}
	}
	return valid, nil
}

// podStillConsumes: a Pod seen deleted goes at once; one the informer
// lacks is asked of the server before its reservation is dropped, since
// the scheduler may be reserving for a Pod the informer has not seen yet.
func (c *Controller) podStillConsumes(ctx context.Context, ns string, ref resourceapi.ResourceClaimConsumerReference) (bool, error) {
	if c.deletedPods.has(ref.UID) {
		return false, nil
	}
	pod, err := c.pods.Pods(ns).Get(ref.Name)
	if apierrors.IsNotFound(err) {
		pod, err = c.client.CoreV1().Pods(ns).Get(ctx, ref.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
	}
	if err != nil {
		return false, err
	}
	return pod.UID == ref.UID && !isPodDone(pod), nil
}

// release writes the reduced reservedFor with an update, so a concurrent
// change makes it fail and retry. When no consumer is left the
// allocation is cleared too (a claim allocated by the scheduler carries
// the delete-protection finalizer), freeing the devices for others; then
// the finalizer goes.
func (c *Controller) release(ctx context.Context, claim *resourceapi.ResourceClaim, valid []resourceapi.ResourceClaimConsumerReference) error {
	claim = claim.DeepCopy()
	claim.Status.ReservedFor = valid
	if len(valid) == 0 && slices.Contains(claim.Finalizers, resourceapi.Finalizer) {
		claim.Status.Allocation = nil
	}
	updated, err := c.client.ResourceV1().ResourceClaims(claim.Namespace).UpdateStatus(ctx, claim, metav1.UpdateOptions{})
	if err != nil {
		return err
	}
	if i := slices.Index(updated.Finalizers, resourceapi.Finalizer); i >= 0 && updated.Status.Allocation == nil {
		updated.Finalizers = slices.Delete(updated.Finalizers, i, i+1)
		if _, err := c.client.ResourceV1().ResourceClaims(updated.Namespace).Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// unblockDeletion: a deleted claim nobody uses loses its allocation (one
// left allocated while unused) and then its delete-protection finalizer.
func (c *Controller) unblockDeletion(ctx context.Context, claim *resourceapi.ResourceClaim) error {
	claim = claim.DeepCopy()
	if claim.Status.Allocation != nil {
		claim.Status.Allocation = nil
		var err error
		if claim, err = c.client.ResourceV1().ResourceClaims(claim.Namespace).UpdateStatus(ctx, claim, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	if i := slices.Index(claim.Finalizers, resourceapi.Finalizer); i >= 0 {
		claim.Finalizers = slices.Delete(claim.Finalizers, i, i+1)
		if _, err := c.client.ResourceV1().ResourceClaims(claim.Namespace).Update(ctx, claim, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// deleteIfPodDone deletes an unreserved claim made for a Pod that was
// replaced or will not run: the garbage collector would only act once the
// Pod itself is deleted, which may be much later. A Pod the informer does
// not know yet is left to the garbage collector.
func (c *Controller) deleteIfPodDone(ctx context.Context, claim *resourceapi.ResourceClaim) error {
	podName, podUID := owningPod(claim)
	if podName == "" || claim.DeletionTimestamp != nil {
		return nil
	}
	pod, err := c.pods.Pods(claim.Namespace).Get(podName)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("lookup pod: %w", err)
	}
	if pod.UID == podUID && !isPodDone(pod) {
		return nil
	}
	c.logger.Debug("deleting unused generated claim", "claim", claim.Namespace+"/"+claim.Name, "pod", podName)
	err = c.client.ResourceV1().ResourceClaims(claim.Namespace).Delete(ctx, claim.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &claim.UID},
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete claim %s/%s: %w", claim.Namespace, claim.Name, err)
	}
	return nil
}
