package podautoscaler

import (
	"context"
	"errors"
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/retry"
)

// Upstream's rescale reasons, in SuccessfulRescale events.
const (
	reasonAboveMax = "Current number of replicas above Spec.MaxReplicas"
	reasonBelowMin = "Current number of replicas below Spec.MinReplicas"
)

// reconcile is one sync of an HPA, in upstream's order: get the target's
// scale, clamp it into [minReplicas, maxReplicas] without metrics, else
// try the metrics, then write the status if it changed.
func (c *Controller) reconcile(ctx context.Context, shared *autoscalingv2.HorizontalPodAutoscaler, key string) error {
	hpa := shared.DeepCopy()
	original := hpa.Status.DeepCopy()
	ref := hpa.Spec.ScaleTargetRef
	reference := fmt.Sprintf("%s/%s/%s", ref.Kind, hpa.Namespace, ref.Name)

	sc, targetGR, err := c.targetScale(ctx, hpa)
	if err != nil {
		c.event(hpa, corev1.EventTypeWarning, "FailedGetScale", "%s", err.Error())
		c.setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale", "the HPA controller was unable to get the target's current scale: %v", err)
		c.writeStatus(ctx, original, hpa)
		return fmt.Errorf("failed to query scale subresource for %s: %w", reference, err)
	}
	c.setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededGetScale", "the HPA controller was able to get the target's current scale")

	current := sc.Spec.Replicas
	minReplicas := int32(1)
	if hpa.Spec.MinReplicas != nil {
		minReplicas = *hpa.Spec.MinReplicas
	}
	var desired int32
	var reason string
	switch {
	case current == 0:
		// Scaled to zero by hand: the HPA stands aside (HPAScaleToZero,
		// alpha and off, would let Object/External metrics wake it).
		c.setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionFalse, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero")
		removeCondition(hpa, autoscalingv2.ScaledToZero)
		c.setStatus(hpa, current, current, nil, false)
		return c.writeStatus(ctx, original, hpa)
	case current > hpa.Spec.MaxReplicas:
		desired, reason = hpa.Spec.MaxReplicas, reasonAboveMax
	case current < minReplicas:
		desired, reason = minReplicas, reasonBelowMin
	default:
		statuses, err := c.computeReplicasForMetrics(ctx, hpa, sc, key)
		if err == nil {
			// Only reached with no metrics at all: nothing to act on.
			c.setStatus(hpa, current, current, statuses, false)
			return c.writeStatus(ctx, original, hpa)
		}
		c.setStatus(hpa, current, hpa.Status.DesiredReplicas, statuses, false)
		c.writeStatus(ctx, original, hpa)
		c.event(hpa, corev1.EventTypeWarning, "FailedComputeMetricsReplicas", "%s", err.Error())
		return fmt.Errorf("failed to compute desired number of replicas based on listed metrics for %s: %w", reference, err)
	}
	return c.rescale(ctx, hpa, original, sc, targetGR, current, desired, reason, reference)
}

// rescale writes desired into the target's scale, retrying on conflicts
// with a fresh read, and records the outcome as upstream.
func (c *Controller) rescale(ctx context.Context, hpa *autoscalingv2.HorizontalPodAutoscaler, original *autoscalingv2.HorizontalPodAutoscalerStatus,
	sc *autoscalingv1.Scale, gr schema.GroupResource, current, desired int32, reason, reference string) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		sc.Spec.Replicas = desired
		_, err := c.scales.Scales(hpa.Namespace).Update(ctx, gr, sc, metav1.UpdateOptions{})
		if err == nil {
			return nil
		}
		if latest, gerr := c.scales.Scales(hpa.Namespace).Get(ctx, gr, hpa.Spec.ScaleTargetRef.Name, metav1.GetOptions{}); gerr == nil {
			sc = latest
		}
		return err
	})
	if err != nil {
		c.event(hpa, corev1.EventTypeWarning, "FailedRescale", "New size: %d; reason: %s; error: %v", desired, reason, err.Error())
		c.setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedUpdateScale", "the HPA controller was unable to update the target scale: %v", err)
		c.setStatus(hpa, current, hpa.Status.DesiredReplicas, nil, false)
		c.writeStatus(ctx, original, hpa)
		return fmt.Errorf("failed to rescale %s: %w", reference, err)
	}
	c.setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededRescale", "the HPA controller was able to update the target scale to %d", desired)
	c.event(hpa, corev1.EventTypeNormal, "SuccessfulRescale", "New size: %d; reason: %s", desired, reason)
	removeCondition(hpa, autoscalingv2.ScaledToZero)
	c.logger.Info("successfully rescaled", "hpa", hpa.Namespace+"/"+hpa.Name, "currentReplicas", current, "desiredReplicas", desired, "reason", reason)
	c.setStatus(hpa, current, desired, nil, true)
	return c.writeStatus(ctx, original, hpa)
}

// targetScale resolves scaleTargetRef through the RESTMapper and reads
// its scale subresource, trying each mapping as upstream does.
func (c *Controller) targetScale(ctx context.Context, hpa *autoscalingv2.HorizontalPodAutoscaler) (*autoscalingv1.Scale, schema.GroupResource, error) {
	ref := hpa.Spec.ScaleTargetRef
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, schema.GroupResource{}, err
	}
	gk := schema.GroupKind{Group: gv.Group, Kind: ref.Kind}
	mappings, err := c.mapper.RESTMappings(gk)
	if meta.IsNoMatchError(err) {
		// A kind defined since discovery was cached (a new CRD).
		meta.MaybeResetRESTMapper(c.mapper)
		mappings, err = c.mapper.RESTMappings(gk)
	}
	if err != nil {
		return nil, schema.GroupResource{}, err
	}
	var first error
	for i, m := range mappings {
		gr := m.Resource.GroupResource()
		sc, err := c.scales.Scales(hpa.Namespace).Get(ctx, gr, ref.Name, metav1.GetOptions{})
		if err == nil {
			return sc, gr, nil
		}
		if i == 0 {
			first = err
		}
	}
	if first == nil {
		first = errors.New("unrecognized resource")
	}
	return nil, schema.GroupResource{}, first
}

// setStatus rebuilds the status as upstream: the replica counts and
// metrics replaced, conditions and the last scale time kept (renewed on
// a rescale), the observed generation recorded.
func (c *Controller) setStatus(hpa *autoscalingv2.HorizontalPodAutoscaler, current, desired int32, metrics []autoscalingv2.MetricStatus, rescaled bool) {
	gen := hpa.Generation
	hpa.Status = autoscalingv2.HorizontalPodAutoscalerStatus{
		ObservedGeneration: &gen,
		CurrentReplicas:    current,
		DesiredReplicas:    desired,
		LastScaleTime:      hpa.Status.LastScaleTime,
		CurrentMetrics:     metrics,
		Conditions:         hpa.Status.Conditions,
	}
	if rescaled {
		now := metav1.NewTime(c.clock.Now())
		hpa.Status.LastScaleTime = &now
	}
}

// writeStatus writes the status through the status subresource when it
// changed. On a conflict it retries on a fresh read of the same
// generation; a newer spec is left to the next sync.
func (c *Controller) writeStatus(ctx context.Context, original *autoscalingv2.HorizontalPodAutoscalerStatus, hpa *autoscalingv2.HorizontalPodAutoscaler) error {
	if apiequality.Semantic.DeepEqual(original, &hpa.Status) {
		return nil
	}
	hpas := c.client.AutoscalingV2().HorizontalPodAutoscalers(hpa.Namespace)
	obj := hpa
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		_, err := hpas.UpdateStatus(ctx, obj, metav1.UpdateOptions{})
		if err == nil || !apierrors.IsConflict(err) {
			return err
		}
		latest, gerr := hpas.Get(ctx, hpa.Name, metav1.GetOptions{})
		if gerr != nil || latest.UID != hpa.UID || latest.Generation != hpa.Generation {
			return err
		}
		latest.Status = *hpa.Status.DeepCopy()
		obj = latest
		return err
	})
	if err != nil {
		c.event(hpa, corev1.EventTypeWarning, "FailedUpdateStatus", "%s", err.Error())
		return fmt.Errorf("failed to update status for %s: %w", hpa.Name, err)
	}
	return nil
}
