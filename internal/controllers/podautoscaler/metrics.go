package podautoscaler

import (
	"context"
	"errors"
	"fmt"
	"sort"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// computeReplicasForMetrics checks the target's selector, then asks for
// every metric. kapi computes no replica count from values, so a metric
// always fails; when all fail (always, unless there are none) the first
// failure's condition is set and the error is upstream's summary. The
// statuses are upstream's too: one empty entry per metric.
func (c *Controller) computeReplicasForMetrics(ctx context.Context, hpa *autoscalingv2.HorizontalPodAutoscaler, sc *autoscalingv1.Scale, key string) ([]autoscalingv2.MetricStatus, error) {
	selector, err := c.validateSelector(hpa, sc.Status.Selector, key)
	if err != nil {
		return nil, err
	}
	specs := hpa.Spec.Metrics
	statuses := make([]autoscalingv2.MetricStatus, len(specs))
	invalid := 0
	var firstErr error
	var firstCond autoscalingv2.HorizontalPodAutoscalerCondition
	for _, spec := range specs {
		cond, err := c.computeForMetric(ctx, hpa, spec, selector)
		if err == nil {
			continue
		}
		if invalid == 0 {
			firstErr, firstCond = err, cond
		}
		invalid++
	}
	if invalid == 0 {
		return statuses, nil
	}
	c.setCondition(hpa, firstCond.Type, firstCond.Status, firstCond.Reason, "%s", firstCond.Message)
	return statuses, fmt.Errorf("invalid metrics (%v invalid out of %v), first error is: %w", invalid, len(specs), firstErr)
}

// validateSelector parses the scale's selector and refuses one whose
// Pods another HPA also selects, with upstream's events and conditions.
func (c *Controller) validateSelector(hpa *autoscalingv2.HorizontalPodAutoscaler, raw, key string) (labels.Selector, error) {
	if raw == "" {
		msg := "selector is required"
		c.event(hpa, corev1.EventTypeWarning, "SelectorRequired", "%s", msg)
		c.setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionFalse, "InvalidSelector", "the HPA target's scale is missing a selector")
		return nil, errors.New(msg)
	}
	selector, err := labels.Parse(raw)
	if err != nil {
		msg := fmt.Sprintf("couldn't convert selector into a corresponding internal selector object: %v", err)
		c.event(hpa, corev1.EventTypeWarning, "InvalidSelector", "%s", msg)
		c.setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionFalse, "InvalidSelector", "%s", msg)
		return nil, errors.New(msg)
	}
	pods, err := c.podLister.Pods(hpa.Namespace).List(selector)
	if err != nil {
		return nil, err
	}
	if others := c.recordSelector(key, hpa.Namespace, selector, pods); len(others) > 1 {
		msg := fmt.Sprintf("pods by selector %v are controlled by more than one HPA (e.g. %v)", raw, others)
		c.event(hpa, corev1.EventTypeWarning, "AmbiguousSelector", "%s", msg)
		c.setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionFalse, "AmbiguousSelector", "%s", msg)
		return nil, errors.New(msg)
	}
	return selector, nil
}

// recordSelector remembers key's selector and returns the keys (at most
// two, sorted) of the HPAs of namespace whose selectors match any of pods.
func (c *Controller) recordSelector(key, namespace string, selector labels.Selector, pods []*corev1.Pod) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.selectors[key] = selector
	var keys []string
	for k, sel := range c.selectors {
		if ns, _, ok := splitKey(k); !ok || ns != namespace {
			continue
		}
		for _, p := range pods {
			if sel.Matches(labels.Set(p.Labels)) {
				keys = append(keys, k)
				break
			}
		}
	}
	sort.Strings(keys)
	if len(keys) > 2 {
		keys = keys[:2]
	}
	return keys
}

// computeForMetric asks for one metric; the condition says why it failed.
func (c *Controller) computeForMetric(ctx context.Context, hpa *autoscalingv2.HorizontalPodAutoscaler, spec autoscalingv2.MetricSpec, selector labels.Selector) (autoscalingv2.HorizontalPodAutoscalerCondition, error) {
	switch spec.Type {
	case autoscalingv2.ObjectMetricSourceType:
		if spec.Object == nil {
			break
		}
		cond, err := c.objectMetric(ctx, hpa, spec.Object)
		return cond, fmt.Errorf("failed to get object metric value: %w", err)
	case autoscalingv2.PodsMetricSourceType:
		if spec.Pods == nil {
			break
		}
		cond, err := c.podsMetric(ctx, hpa, spec.Pods, selector)
		return cond, fmt.Errorf("failed to get pods metric value: %w", err)
	case autoscalingv2.ResourceMetricSourceType:
		if spec.Resource == nil {
			break
		}
		err := c.resourceMetric(ctx, hpa.Namespace, spec.Resource.Name, "", spec.Resource.Target, selector)
		cond := c.unableToCompute(hpa, "FailedGetResourceMetric", err)
		return cond, fmt.Errorf("failed to get %s resource metric value: %w", spec.Resource.Name, err)
	case autoscalingv2.ContainerResourceMetricSourceType:
		if spec.ContainerResource == nil {
			break
		}
		cr := spec.ContainerResource
		err := c.resourceMetric(ctx, hpa.Namespace, cr.Name, cr.Container, cr.Target, selector)
		cond := c.unableToCompute(hpa, "FailedGetContainerResourceMetric", err)
		return cond, fmt.Errorf("failed to get %s container metric value: %w", cr.Container, err)
	case autoscalingv2.ExternalMetricSourceType:
		if spec.External == nil {
			break
		}
		return c.externalMetric(ctx, hpa, spec.External)
	}
	err := fmt.Errorf("unknown metric source type %q", string(spec.Type))
	return c.unableToCompute(hpa, "InvalidMetricSourceType", err), err
}

// unableToCompute records the metric's failure as an event and returns
// the ScalingActive condition that reports it.
func (c *Controller) unableToCompute(hpa *autoscalingv2.HorizontalPodAutoscaler, reason string, err error) autoscalingv2.HorizontalPodAutoscalerCondition {
	c.event(hpa, corev1.EventTypeWarning, reason, "%s", err.Error())
	return autoscalingv2.HorizontalPodAutoscalerCondition{
		Type:    autoscalingv2.ScalingActive,
		Status:  corev1.ConditionFalse,
		Reason:  reason,
		Message: fmt.Sprintf("the HPA was unable to compute the replica count: %v", err),
	}
}

// resourceMetric is a (container) resource metric's failure, worded by
// its target type as upstream.
func (c *Controller) resourceMetric(ctx context.Context, namespace string, name corev1.ResourceName, container string, target autoscalingv2.MetricTarget, selector labels.Selector) error {
	if target.AverageValue != nil {
		err := c.metrics.GetResourceMetric(ctx, name, namespace, selector, container)
		return fmt.Errorf("failed to get %s usage: unable to get metrics for resource %s: %w", name, name, err)
	}
	if target.AverageUtilization == nil {
		return errors.New("invalid resource metric source: neither an average utilization target nor an average value (usage) target was set")
	}
	err := c.metrics.GetResourceMetric(ctx, name, namespace, selector, container)
	return fmt.Errorf("failed to get %s utilization: unable to get metrics for resource %s: %w", name, name, err)
}

func (c *Controller) podsMetric(ctx context.Context, hpa *autoscalingv2.HorizontalPodAutoscaler, src *autoscalingv2.PodsMetricSource, selector labels.Selector) (autoscalingv2.HorizontalPodAutoscalerCondition, error) {
	metricSelector, err := metav1.LabelSelectorAsSelector(src.Metric.Selector)
	if err == nil {
		err = c.metrics.GetRawMetric(ctx, src.Metric.Name, hpa.Namespace, selector, metricSelector)
		err = fmt.Errorf("unable to get metric %s: %w", src.Metric.Name, err)
	}
	return c.unableToCompute(hpa, "FailedGetPodsMetric", err), err
}

func (c *Controller) objectMetric(ctx context.Context, hpa *autoscalingv2.HorizontalPodAutoscaler, src *autoscalingv2.ObjectMetricSource) (autoscalingv2.HorizontalPodAutoscalerCondition, error) {
	metricSelector, err := metav1.LabelSelectorAsSelector(src.Metric.Selector)
	if err != nil {
		return c.unableToCompute(hpa, "FailedGetObjectMetric", err), err
	}
	ref := &src.DescribedObject
	fetch := func() error {
		err := c.metrics.GetObjectMetric(ctx, src.Metric.Name, hpa.Namespace, ref, metricSelector)
		return fmt.Errorf("unable to get metric %s on %s %s/%s: %w", src.Metric.Name, ref.Kind, hpa.Namespace, ref.Name, err)
	}
	switch {
	case src.Target.Type == autoscalingv2.ValueMetricType && src.Target.Value != nil:
		err := fetch()
		return c.unableToCompute(hpa, "FailedGetObjectMetric", err), err
	case src.Target.Type == autoscalingv2.AverageValueMetricType && src.Target.AverageValue != nil:
		err := fetch()
		return c.unableToCompute(hpa, "FailedGetObjectMetric", err), fmt.Errorf("failed to get %s object metric: %w", src.Metric.Name, err)
	}
	err = errors.New("invalid object metric source: neither a value target nor an average value target was set")
	return c.unableToCompute(hpa, "FailedGetObjectMetric", err), err
}

func (c *Controller) externalMetric(ctx context.Context, hpa *autoscalingv2.HorizontalPodAutoscaler, src *autoscalingv2.ExternalMetricSource) (autoscalingv2.HorizontalPodAutoscalerCondition, error) {
	name := src.Metric.Name
	wrap := func(err error) error { return fmt.Errorf("failed to get %s external metric value: %w", name, err) }
	fetch := func() error {
		metricSelector, err := metav1.LabelSelectorAsSelector(src.Metric.Selector)
		if err != nil {
			return err
		}
		err = c.metrics.GetExternalMetric(ctx, name, hpa.Namespace, metricSelector)
		return fmt.Errorf("unable to get external metric %s/%s/%+v: %s", hpa.Namespace, name, src.Metric.Selector, err)
	}
	switch {
	case src.Target.AverageValue != nil:
		err := fetch()
		return c.unableToCompute(hpa, "FailedGetExternalMetric", err), wrap(fmt.Errorf("failed to get %s external metric: %w", name, err))
	case src.Target.Value != nil:
		err := fetch()
		return c.unableToCompute(hpa, "FailedGetExternalMetric", err), wrap(fmt.Errorf("failed to get external metric %s: %w", name, err))
	}
	err := errors.New("invalid external metric source: neither a value target nor an average value target was set")
	return c.unableToCompute(hpa, "FailedGetExternalMetric", err), wrap(err)
}
