package resourceclaim

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1apply "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"
)

// podNeedsWork: a claim must be made from a template, or an allocated
// claim reserved for a Pod that already has a node.
func (c *Controller) podNeedsWork(pod *corev1.Pod) bool {
	// A deleted or finished Pod gets no claim and no reservation; its
	// claims were queued for clean-up instead. (Upstream 1.37 can still
	// re-reserve for a terminal Pod with a node, kubernetes#141274.)
	if pod.DeletionTimestamp != nil || isPodTerminal(pod) {
		return false
	}
	for i := range pod.Spec.ResourceClaims {
		podClaim := &pod.Spec.ResourceClaims[i]
		name, checkOwner, err := claimName(pod, podClaim)
		if err != nil {
			return true
		}
		if name == nil {
			return false
		}
		claim, err := c.claims.ResourceClaims(pod.Namespace).Get(*name)
		if apierrors.IsNotFound(err) {
			// A named claim is the user's to create.
			return podClaim.ResourceClaimTemplateName != nil
		}
		if err != nil {
			return true
		}
		if checkOwner && isForPod(pod, claim) != nil {
			return false // the conflicting claim must go first
		}
		if pod.Spec.NodeName == "" {
			continue // the scheduler reserves
		}
		if claim.Status.Allocation != nil && !isReservedForPod(pod, claim) && canBeReserved(claim) {
			return true
		}
	}
	return false
}

// canBeReserved: status.reservedFor has room for one more consumer.
func canBeReserved(claim *resourceapi.ResourceClaim) bool {
	return len(claim.Status.ReservedFor) < resourceapi.ResourceClaimReservedForMaxSize
}

func (c *Controller) syncPod(ctx context.Context, ns, name string) error {
	pod, err := c.pods.Pods(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if pod.DeletionTimestamp != nil || isPodTerminal(pod) {
		return nil
	}
	created := map[string]string{}
	for _, podClaim := range pod.Spec.ResourceClaims {
		if err := c.handleClaim(ctx, pod, podClaim, created); err != nil {
			c.recorder.Eventf(pod, nil, corev1.EventTypeWarning, "FailedResourceClaimCreation", "CreateResourceClaim",
				"PodResourceClaim %s: %v", podClaim.Name, err)
			return fmt.Errorf("pod %s/%s, PodResourceClaim %s: %w", ns, name, podClaim.Name, err)
		}
	}
	if len(created) > 0 {
		if err := c.applyClaimStatuses(ctx, pod, created); err != nil {
			return err
		}
	}
	if pod.Spec.NodeName == "" {
		return nil // the scheduler reserves
	}
	return c.reserveForScheduledPod(ctx, pod)
}

// applyClaimStatuses records generated claim names in the Pod's
// status.resourceClaimStatuses through server-side apply on pods/status.
func (c *Controller) applyClaimStatuses(ctx context.Context, pod *corev1.Pod, created map[string]string) error {
	names := make([]string, 0, len(created))
	for n := range created {
		names = append(names, n)
	}
	sort.Strings(names)
	statuses := make([]*corev1apply.PodResourceClaimStatusApplyConfiguration, 0, len(names))
	for _, n := range names {
		statuses = append(statuses, corev1apply.PodResourceClaimStatus().WithName(n).WithResourceClaimName(created[n]))
	}
	apply := corev1apply.Pod(pod.Name, pod.Namespace).WithStatus(corev1apply.PodStatus().WithResourceClaimStatuses(statuses...))
	if _, err := c.client.CoreV1().Pods(pod.Namespace).ApplyStatus(ctx, apply, metav1.ApplyOptions{FieldManager: FieldManager, Force: true}); err != nil {
		return fmt.Errorf("update pod %s/%s ResourceClaimStatuses: %w", pod.Namespace, pod.Name, err)
	}
	return nil
}

// handleClaim makes the claim of one template entry unless the Pod's
// status already names a claim the Pod controls; the name goes into
// created for the status write.
func (c *Controller) handleClaim(ctx context.Context, pod *corev1.Pod, podClaim corev1.PodResourceClaim, created map[string]string) error {
	name, mustCheckOwner, err := claimName(pod, &podClaim)
	switch {
	case errors.Is(err, errClaimNotCreated):
	case err != nil:
		return fmt.Errorf("checking for claim before creating it: %w", err)
	case name == nil:
		return nil // not needed
	case *name != "":
		claim, err := c.claims.ResourceClaims(pod.Namespace).Get(*name)
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		if claim != nil {
			if !mustCheckOwner || isForPod(pod, claim) == nil {
				return nil // made before
			}
			c.logger.Info("claim recorded for the pod is not owned by it, creating a new one",
				"pod", pod.Namespace+"/"+pod.Name, "podClaim", podClaim.Name, "claim", *name)
		}
		// Recorded but deleted since: made again below.
	}
	if podClaim.ResourceClaimTemplateName == nil {
		return nil
	}
	// A claim made before the Pod's status write failed is reused.
	claim, err := c.findOwnedClaim(pod, podClaim.Name)
	if err != nil {
		return fmt.Errorf("finding ResourceClaim for claim %s in pod %s/%s failed: %w", podClaim.Name, pod.Namespace, pod.Name, err)
	}
	if claim == nil {
		if claim, err = c.createClaim(ctx, pod, podClaim.Name, *podClaim.ResourceClaimTemplateName); err != nil {
			return err
		}
	}
	created[podClaim.Name] = claim.Name
	return nil
}

// createClaim instantiates the template for the Pod.
func (c *Controller) createClaim(ctx context.Context, pod *corev1.Pod, podClaimName, templateName string) (*resourceapi.ResourceClaim, error) {
	tmpl, err := c.templates.ResourceClaimTemplates(pod.Namespace).Get(templateName)
	if err != nil {
		return nil, fmt.Errorf("resource claim template %q: %w", templateName, err)
	}
	annotations := maps.Clone(tmpl.Spec.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[PodClaimNameAnnotation] = podClaimName
	claim := &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: generateName(pod.Name, podClaimName),
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
			Annotations: annotations,
			Labels:      maps.Clone(tmpl.Spec.Labels),
		},
		Spec: *tmpl.Spec.Spec.DeepCopy(),
	}
	claim, err = c.client.ResourceV1().ResourceClaims(pod.Namespace).Create(ctx, claim, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create ResourceClaim %s: %w", generateName(pod.Name, podClaimName), err)
	}
	c.logger.Debug("created ResourceClaim", "claim", claim.Namespace+"/"+claim.Name, "pod", pod.Name)
	c.claimCache.Mutation(claim)
	return claim, nil
}

// generateName is "<pod>-<claim>-"; when that passes 57 characters (a
// name of 63 with the five random ones) both parts are cut in proportion
// to their lengths, so neither is lost, as upstream cuts them.
func generateName(podName, podClaimName string) string {
	const maxBase = 57
	base := podName + "-" + podClaimName + "-"
	if len(base) <= maxBase {
		return base
	}
	return podName[:len(podName)*maxBase/len(base)] + "-" + podClaimName[:len(podClaimName)*maxBase/len(base)]
}

// findOwnedClaim is the claim the Pod controls that carries the pod-claim
// annotation for podClaimName.
func (c *Controller) findOwnedClaim(pod *corev1.Pod, podClaimName string) (*resourceapi.ResourceClaim, error) {
	objs, err := c.claimCache.ByIndex(claimOwnerIndex, string(pod.UID))
	if err != nil {
		return nil, err
	}
	for _, obj := range objs {
		claim, ok := obj.(*resourceapi.ResourceClaim)
		if !ok {
			return nil, fmt.Errorf("unexpected %T in the claim cache", obj)
		}
		if v, ok := claim.Annotations[PodClaimNameAnnotation]; ok && v == podClaimName {
			return claim, nil
		}
	}
	return nil, nil
}

// reserveForScheduledPod adds a Pod that has a node (set by the user or
// a scheduler unaware of DRA) to the reservedFor of its allocated claims.
func (c *Controller) reserveForScheduledPod(ctx context.Context, pod *corev1.Pod) error {
	for i := range pod.Spec.ResourceClaims {
		name, checkOwner, err := claimName(pod, &pod.Spec.ResourceClaims[i])
		if err != nil {
			return err
		}
		if name == nil {
			continue
		}
		claim, err := c.claims.ResourceClaims(pod.Namespace).Get(*name)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("retrieve claim: %w", err)
		}
		if checkOwner {
			if err := isForPod(pod, claim); err != nil {
				return err
			}
		}
		if claim.Status.Allocation == nil || isReservedForPod(pod, claim) || !canBeReserved(claim) {
			continue
		}
		claim = claim.DeepCopy()
		claim.Status.ReservedFor = append(claim.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{
			Resource: "pods", Name: pod.Name, UID: pod.UID,
		})
		if _, err := c.client.ResourceV1().ResourceClaims(claim.Namespace).UpdateStatus(ctx, claim, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("reserve claim %s/%s for pod: %w", claim.Namespace, claim.Name, err)
		}
	}
	return nil
}
