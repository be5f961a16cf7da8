package v1

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The metric conversions follow upstream's: autoscaling/v1 carries metrics
// (in annotations) in the older v2beta1 shape, with the target kind implied
// by which value is set.

func metricSpecToV1(in *autoscalingv2.MetricSpec) autoscalingv1.MetricSpec {
	out := autoscalingv1.MetricSpec{Type: autoscalingv1.MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		out.Object = &autoscalingv1.ObjectMetricSource{
			Target:       autoscalingv1.CrossVersionObjectReference(s.DescribedObject),
			MetricName:   s.Metric.Name,
			Selector:     s.Metric.Selector.DeepCopy(),
			AverageValue: copyQuantity(s.Target.AverageValue),
		}
		if s.Target.Value != nil {
			out.Object.TargetValue = s.Target.Value.DeepCopy()
		}
	}
	if s := in.Pods; s != nil {
		out.Pods = &autoscalingv1.PodsMetricSource{MetricName: s.Metric.Name, Selector: s.Metric.Selector.DeepCopy()}
		if s.Target.AverageValue != nil {
			out.Pods.TargetAverageValue = s.Target.AverageValue.DeepCopy()
		}
	}
	if s := in.Resource; s != nil {
		out.Resource = &autoscalingv1.ResourceMetricSource{
			Name:                     s.Name,
			TargetAverageUtilization: copyPtr(s.Target.AverageUtilization),
			TargetAverageValue:       copyQuantity(s.Target.AverageValue),
		}
	}
	if s := in.ContainerResource; s != nil {
		out.ContainerResource = &autoscalingv1.ContainerResourceMetricSource{
			Name:                     s.Name,
			Container:                s.Container,
			TargetAverageUtilization: copyPtr(s.Target.AverageUtilization),
			TargetAverageValue:       copyQuantity(s.Target.AverageValue),
		}
	}
	if s := in.External; s != nil {
		out.External = &autoscalingv1.ExternalMetricSource{
			MetricName:         s.Metric.Name,
			MetricSelector:     s.Metric.Selector.DeepCopy(),
			TargetValue:        copyQuantity(s.Target.Value),
			TargetAverageValue: copyQuantity(s.Target.AverageValue),
		}
	}
	return out
}

func metricSpecFromV1(in *autoscalingv1.MetricSpec) autoscalingv2.MetricSpec {
	out := autoscalingv2.MetricSpec{Type: autoscalingv2.MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		targetType := autoscalingv2.ValueMetricType
		if s.AverageValue != nil {
			targetType = autoscalingv2.AverageValueMetricType
		}
		value := s.TargetValue.DeepCopy()
		out.Object = &autoscalingv2.ObjectMetricSource{
			DescribedObject: autoscalingv2.CrossVersionObjectReference(s.Target),
			Metric:          metricIdentifier(s.MetricName, s.Selector),
			Target:          autoscalingv2.MetricTarget{Type: targetType, Value: &value, AverageValue: copyQuantity(s.AverageValue)},
		}
	}
	if s := in.Pods; s != nil {
		value := s.TargetAverageValue.DeepCopy()
		out.Pods = &autoscalingv2.PodsMetricSource{
			Metric: metricIdentifier(s.MetricName, s.Selector),
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &value},
		}
	}
	if s := in.Resource; s != nil {
		out.Resource = &autoscalingv2.ResourceMetricSource{
			Name:   s.Name,
			Target: utilizationOrAverage(s.TargetAverageUtilization, s.TargetAverageValue),
		}
	}
	if s := in.ContainerResource; s != nil {
		out.ContainerResource = &autoscalingv2.ContainerResourceMetricSource{
			Name:      s.Name,
			Container: s.Container,
			Target:    utilizationOrAverage(s.TargetAverageUtilization, s.TargetAverageValue),
		}
	}
	if s := in.External; s != nil {
		targetType := autoscalingv2.AverageValueMetricType
		if s.TargetValue != nil {
			targetType = autoscalingv2.ValueMetricType
		}
		out.External = &autoscalingv2.ExternalMetricSource{
			Metric: metricIdentifier(s.MetricName, s.MetricSelector),
			Target: autoscalingv2.MetricTarget{Type: targetType, Value: copyQuantity(s.TargetValue), AverageValue: copyQuantity(s.TargetAverageValue)},
		}
	}
	return out
}

func utilizationOrAverage(utilization *int32, average *resource.Quantity) autoscalingv2.MetricTarget {
	targetType := autoscalingv2.AverageValueMetricType
	if utilization != nil {
		targetType = autoscalingv2.UtilizationMetricType
	}
	return autoscalingv2.MetricTarget{Type: targetType, AverageUtilization: copyPtr(utilization), AverageValue: copyQuantity(average)}
}

func metricIdentifier(name string, selector *metav1.LabelSelector) autoscalingv2.MetricIdentifier {
	return autoscalingv2.MetricIdentifier{Name: name, Selector: selector.DeepCopy()}
}

func metricStatusToV1(in *autoscalingv2.MetricStatus) autoscalingv1.MetricStatus {
	out := autoscalingv1.MetricStatus{Type: autoscalingv1.MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		out.Object = &autoscalingv1.ObjectMetricStatus{
			Target:       autoscalingv1.CrossVersionObjectReference(s.DescribedObject),
			MetricName:   s.Metric.Name,
			Selector:     s.Metric.Selector.DeepCopy(),
			CurrentValue: quantityOrZero(s.Current.Value),
			AverageValue: copyQuantity(s.Current.AverageValue),
		}
	}
	if s := in.Pods; s != nil {
		out.Pods = &autoscalingv1.PodsMetricStatus{
			MetricName:          s.Metric.Name,
			Selector:            s.Metric.Selector.DeepCopy(),
			CurrentAverageValue: quantityOrZero(s.Current.AverageValue),
		}
	}
	if s := in.Resource; s != nil {
		out.Resource = &autoscalingv1.ResourceMetricStatus{
			Name:                      s.Name,
			CurrentAverageUtilization: copyPtr(s.Current.AverageUtilization),
			CurrentAverageValue:       quantityOrZero(s.Current.AverageValue),
		}
	}
	if s := in.ContainerResource; s != nil {
		out.ContainerResource = &autoscalingv1.ContainerResourceMetricStatus{
			Name:                      s.Name,
			Container:                 s.Container,
			CurrentAverageUtilization: copyPtr(s.Current.AverageUtilization),
			CurrentAverageValue:       quantityOrZero(s.Current.AverageValue),
		}
	}
	if s := in.External; s != nil {
		out.External = &autoscalingv1.ExternalMetricStatus{
			MetricName:          s.Metric.Name,
			MetricSelector:      s.Metric.Selector.DeepCopy(),
			CurrentValue:        quantityOrZero(s.Current.Value),
			CurrentAverageValue: copyQuantity(s.Current.AverageValue),
		}
	}
	return out
}

func metricStatusFromV1(in *autoscalingv1.MetricStatus) autoscalingv2.MetricStatus {
	out := autoscalingv2.MetricStatus{Type: autoscalingv2.MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		out.Object = &autoscalingv2.ObjectMetricStatus{
			DescribedObject: autoscalingv2.CrossVersionObjectReference(s.Target),
			Metric:          metricIdentifier(s.MetricName, s.Selector),
			Current:         autoscalingv2.MetricValueStatus{Value: copyQuantity(&s.CurrentValue), AverageValue: copyQuantity(s.AverageValue)},
		}
	}
	if s := in.Pods; s != nil {
		out.Pods = &autoscalingv2.PodsMetricStatus{
			Metric:  metricIdentifier(s.MetricName, s.Selector),
			Current: autoscalingv2.MetricValueStatus{AverageValue: copyQuantity(&s.CurrentAverageValue)},
		}
	}
	if s := in.Resource; s != nil {
		out.Resource = &autoscalingv2.ResourceMetricStatus{
			Name:    s.Name,
			Current: autoscalingv2.MetricValueStatus{AverageUtilization: copyPtr(s.CurrentAverageUtilization), AverageValue: copyQuantity(&s.CurrentAverageValue)},
		}
	}
	if s := in.ContainerResource; s != nil {
		out.ContainerResource = &autoscalingv2.ContainerResourceMetricStatus{
			Name:      s.Name,
			Container: s.Container,
			Current:   autoscalingv2.MetricValueStatus{AverageUtilization: copyPtr(s.CurrentAverageUtilization), AverageValue: copyQuantity(&s.CurrentAverageValue)},
		}
	}
	if s := in.External; s != nil {
		out.External = &autoscalingv2.ExternalMetricStatus{
			Metric:  metricIdentifier(s.MetricName, s.MetricSelector),
			Current: autoscalingv2.MetricValueStatus{Value: copyQuantity(&s.CurrentValue), AverageValue: copyQuantity(s.CurrentAverageValue)},
		}
	}
	return out
}

func copyQuantity(q *resource.Quantity) *resource.Quantity {
	if q == nil {
		return nil
	}
	c := q.DeepCopy()
	return &c
}

func quantityOrZero(q *resource.Quantity) resource.Quantity {
	if q == nil {
		return resource.Quantity{}
	}
	return q.DeepCopy()
}

// behaviorAnnotation is the JSON of the behavior annotation. Upstream
// encodes its internal type, which has no json tags, so the keys are the
// Go field names ("ScaleUp", "StabilizationWindowSeconds", ...); these
// structs reproduce that encoding.
type behaviorAnnotation struct {
	ScaleUp   *scalingRulesAnnotation
	ScaleDown *scalingRulesAnnotation
}

type scalingRulesAnnotation struct {
	StabilizationWindowSeconds *int32
	SelectPolicy               *autoscalingv2.ScalingPolicySelect
	Policies                   []scalingPolicyAnnotation
	Tolerance                  *resource.Quantity
}

type scalingPolicyAnnotation struct {
	Type          autoscalingv2.HPAScalingPolicyType
	Value         int32
	PeriodSeconds int32
}

func behaviorToAnnotation(b *autoscalingv2.HorizontalPodAutoscalerBehavior) *behaviorAnnotation {
	if b == nil {
		return nil
	}
	return &behaviorAnnotation{ScaleUp: rulesToAnnotation(b.ScaleUp), ScaleDown: rulesToAnnotation(b.ScaleDown)}
}

func rulesToAnnotation(r *autoscalingv2.HPAScalingRules) *scalingRulesAnnotation {
	if r == nil {
		return nil
	}
	out := &scalingRulesAnnotation{
		StabilizationWindowSeconds: copyPtr(r.StabilizationWindowSeconds),
		SelectPolicy:               copyPtr(r.SelectPolicy),
		Tolerance:                  copyQuantity(r.Tolerance),
	}
	if r.Policies != nil {
		out.Policies = make([]scalingPolicyAnnotation, len(r.Policies))
		for i, p := range r.Policies {
			out.Policies[i] = scalingPolicyAnnotation(p)
		}
	}
	return out
}

func (b *behaviorAnnotation) toV2() *autoscalingv2.HorizontalPodAutoscalerBehavior {
	return &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: b.ScaleUp.toV2(), ScaleDown: b.ScaleDown.toV2()}
}

func (r *scalingRulesAnnotation) toV2() *autoscalingv2.HPAScalingRules {
	if r == nil {
		return nil
	}
	out := &autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: r.StabilizationWindowSeconds,
		SelectPolicy:               r.SelectPolicy,
		Tolerance:                  r.Tolerance,
	}
	if r.Policies != nil {
		out.Policies = make([]autoscalingv2.HPAScalingPolicy, len(r.Policies))
		for i, p := range r.Policies {
			out.Policies[i] = autoscalingv2.HPAScalingPolicy(p)
		}
	}
	return out
}
