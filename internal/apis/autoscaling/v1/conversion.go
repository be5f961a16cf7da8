package v1

import (
	"encoding/json"
	"fmt"
	"maps"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// Annotations that carry, on an autoscaling/v1 object, what only v2 can
// express, so that a v2 object read and written back as v1 loses nothing.
// They never appear on the stored (v2) object.
const (
	MetricSpecsAnnotation    = "autoscaling.alpha.kubernetes.io/metrics"
	MetricStatusesAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics"
	ConditionsAnnotation     = "autoscaling.alpha.kubernetes.io/conditions"
	BehaviorSpecsAnnotation  = "autoscaling.alpha.kubernetes.io/behavior"
)

// DefaultCPUUtilization is the CPU utilization target, in percent, of an
// HPA that names no metric.
const DefaultCPUUtilization = int32(80)

// RegisterConversions adds the conversions between autoscaling/v1
// HorizontalPodAutoscaler(List) and autoscaling/v2, the storage version,
// in both directions.
func RegisterConversions(scheme *runtime.Scheme) error {
	funcs := []struct {
		a, b any
		fn   conversion.ConversionFunc
	}{
		{(*autoscalingv1.HorizontalPodAutoscaler)(nil), (*autoscalingv2.HorizontalPodAutoscaler)(nil), func(a, b any, _ conversion.Scope) error {
			return ConvertV1ToV2(a.(*autoscalingv1.HorizontalPodAutoscaler), b.(*autoscalingv2.HorizontalPodAutoscaler))
		}},
		{(*autoscalingv2.HorizontalPodAutoscaler)(nil), (*autoscalingv1.HorizontalPodAutoscaler)(nil), func(a, b any, _ conversion.Scope) error {
			return ConvertV2ToV1(a.(*autoscalingv2.HorizontalPodAutoscaler), b.(*autoscalingv1.HorizontalPodAutoscaler))
		}},
		{(*autoscalingv1.HorizontalPodAutoscalerList)(nil), (*autoscalingv2.HorizontalPodAutoscalerList)(nil), func(a, b any, _ conversion.Scope) error {
			in, out := a.(*autoscalingv1.HorizontalPodAutoscalerList), b.(*autoscalingv2.HorizontalPodAutoscalerList)
			in.ListMeta.DeepCopyInto(&out.ListMeta)
			out.Items = make([]autoscalingv2.HorizontalPodAutoscaler, len(in.Items))
			for i := range in.Items {
				if err := ConvertV1ToV2(&in.Items[i], &out.Items[i]); err != nil {
					return err
				}
			}
			return nil
		}},
		{(*autoscalingv2.HorizontalPodAutoscalerList)(nil), (*autoscalingv1.HorizontalPodAutoscalerList)(nil), func(a, b any, _ conversion.Scope) error {
			in, out := a.(*autoscalingv2.HorizontalPodAutoscalerList), b.(*autoscalingv1.HorizontalPodAutoscalerList)
			in.ListMeta.DeepCopyInto(&out.ListMeta)
			out.Items = make([]autoscalingv1.HorizontalPodAutoscaler, len(in.Items))
			for i := range in.Items {
				if err := ConvertV2ToV1(&in.Items[i], &out.Items[i]); err != nil {
					return err
				}
			}
			return nil
		}},
	}
	for _, f := range funcs {
		if err := scheme.AddConversionFunc(f.a, f.b, f.fn); err != nil {
			return err
		}
	}
	return nil
}

// ConvertV2ToV1 converts a stored HPA for an autoscaling/v1 client: the
// CPU utilization target and current value become the v1 fields, and
// every other metric, the current metrics, the conditions and the
// behavior are kept in annotations.
func ConvertV2ToV1(in *autoscalingv2.HorizontalPodAutoscaler, out *autoscalingv1.HorizontalPodAutoscaler) error {
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	// Only annotations this conversion writes may be present.
	out.Annotations = dropRoundTripAnnotations(out.Annotations)

	out.Spec = autoscalingv1.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv1.CrossVersionObjectReference(in.Spec.ScaleTargetRef),
		MinReplicas:    copyPtr(in.Spec.MinReplicas),
		MaxReplicas:    in.Spec.MaxReplicas,
	}
	var others []autoscalingv1.MetricSpec
	cpuSeen := false
	for i := range in.Spec.Metrics {
		m := &in.Spec.Metrics[i]
		isCPU := m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU
		if isCPU && !cpuSeen {
			cpuSeen = true
			out.Spec.TargetCPUUtilizationPercentage = copyPtr(m.Resource.Target.AverageUtilization)
		}
		if isCPU && m.Resource.Target.AverageUtilization != nil {
			continue
		}
		others = append(others, metricSpecToV1(m))
	}

	out.Status = autoscalingv1.HorizontalPodAutoscalerStatus{
		ObservedGeneration: copyPtr(in.Status.ObservedGeneration),
		LastScaleTime:      in.Status.LastScaleTime.DeepCopy(),
		CurrentReplicas:    in.Status.CurrentReplicas,
		DesiredReplicas:    in.Status.DesiredReplicas,
	}
	currentMetrics := make([]autoscalingv1.MetricStatus, len(in.Status.CurrentMetrics))
	for i := range in.Status.CurrentMetrics {
		m := &in.Status.CurrentMetrics[i]
		if m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU && m.Resource.Current.AverageUtilization != nil {
			out.Status.CurrentCPUUtilizationPercentage = copyPtr(m.Resource.Current.AverageUtilization)
		}
		currentMetrics[i] = metricStatusToV1(m)
	}
	conditions := make([]autoscalingv1.HorizontalPodAutoscalerCondition, len(in.Status.Conditions))
	for i, c := range in.Status.Conditions {
		conditions[i] = autoscalingv1.HorizontalPodAutoscalerCondition{
			Type:               autoscalingv1.HorizontalPodAutoscalerConditionType(c.Type),
			Status:             c.Status,
			LastTransitionTime: c.LastTransitionTime,
			Reason:             c.Reason,
			Message:            c.Message,
		}
	}

	annotations := []struct {
		key     string
		present bool
		value   any
	}{
		{MetricSpecsAnnotation, len(others) > 0, others},
		{MetricStatusesAnnotation, len(currentMetrics) > 0, currentMetrics},
		{BehaviorSpecsAnnotation, in.Spec.Behavior != nil, behaviorToAnnotation(in.Spec.Behavior)},
		{ConditionsAnnotation, len(conditions) > 0, conditions},
	}
	for _, a := range annotations {
		if !a.present {
			continue
		}
		enc, err := json.Marshal(a.value)
		if err != nil {
			return fmt.Errorf("encoding %s: %w", a.key, err)
		}
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[a.key] = string(enc)
	}
	return nil
}

// ConvertV1ToV2 converts an autoscaling/v1 HPA to the stored version,
// restoring from the round-trip annotations what v1 cannot hold and
// removing them. An HPA with no metric at all targets 80% CPU, the default
// autoscaling/v1 always had.
func ConvertV1ToV2(in *autoscalingv1.HorizontalPodAutoscaler, out *autoscalingv2.HorizontalPodAutoscaler) error {
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	annotations := in.Annotations

	out.Spec = autoscalingv2.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv2.CrossVersionObjectReference(in.Spec.ScaleTargetRef),
		MinReplicas:    copyPtr(in.Spec.MinReplicas),
		MaxReplicas:    in.Spec.MaxReplicas,
	}
	var cpu []autoscalingv2.MetricSpec
	if in.Spec.TargetCPUUtilizationPercentage != nil {
		cpu = []autoscalingv2.MetricSpec{cpuUtilizationMetric(*in.Spec.TargetCPUUtilizationPercentage)}
	}
	out.Spec.Metrics = cpu
	// Malformed annotations are ignored, as upstream does.
	if enc, ok := annotations[MetricSpecsAnnotation]; ok {
		var others []autoscalingv1.MetricSpec
		if err := json.Unmarshal([]byte(enc), &others); err == nil {
			metrics := make([]autoscalingv2.MetricSpec, 0, len(others)+len(cpu))
			for i := range others {
				metrics = append(metrics, metricSpecFromV1(&others[i]))
			}
			out.Spec.Metrics = append(metrics, cpu...)
		}
	}
	if enc, ok := annotations[BehaviorSpecsAnnotation]; ok {
		var b behaviorAnnotation
		if err := json.Unmarshal([]byte(enc), &b); err == nil && (b.ScaleUp != nil || b.ScaleDown != nil) {
			out.Spec.Behavior = b.toV2()
		}
	}
	if len(out.Spec.Metrics) == 0 {
		out.Spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilizationMetric(DefaultCPUUtilization)}
	}

	out.Status = autoscalingv2.HorizontalPodAutoscalerStatus{
		ObservedGeneration: copyPtr(in.Status.ObservedGeneration),
		LastScaleTime:      in.Status.LastScaleTime.DeepCopy(),
		CurrentReplicas:    in.Status.CurrentReplicas,
		DesiredReplicas:    in.Status.DesiredReplicas,
	}
	if in.Status.CurrentCPUUtilizationPercentage != nil {
		out.Status.CurrentMetrics = []autoscalingv2.MetricStatus{{
			Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricStatus{
				Name:    corev1.ResourceCPU,
				Current: autoscalingv2.MetricValueStatus{AverageUtilization: copyPtr(in.Status.CurrentCPUUtilizationPercentage)},
			},
		}}
	}
	if enc, ok := annotations[MetricStatusesAnnotation]; ok {
		var current []autoscalingv1.MetricStatus
		if err := json.Unmarshal([]byte(enc), &current); err == nil {
			// The annotation has more than the CPU percentage: it wins.
			out.Status.CurrentMetrics = make([]autoscalingv2.MetricStatus, len(current))
			for i := range current {
				out.Status.CurrentMetrics[i] = metricStatusFromV1(&current[i])
			}
		}
	}
	if enc, ok := annotations[ConditionsAnnotation]; ok {
		var conditions []autoscalingv1.HorizontalPodAutoscalerCondition
		if err := json.Unmarshal([]byte(enc), &conditions); err == nil {
			out.Status.Conditions = make([]autoscalingv2.HorizontalPodAutoscalerCondition, len(conditions))
			for i, c := range conditions {
				out.Status.Conditions[i] = autoscalingv2.HorizontalPodAutoscalerCondition{
					Type:               autoscalingv2.HorizontalPodAutoscalerConditionType(c.Type),
					Status:             c.Status,
					LastTransitionTime: c.LastTransitionTime,
					Reason:             c.Reason,
					Message:            c.Message,
				}
			}
		}
	}
	out.Annotations = dropRoundTripAnnotations(out.Annotations)
	return nil
}

// dropRoundTripAnnotations returns annotations without the round-trip
// keys, nil when nothing else is left; the map passed in is not changed.
func dropRoundTripAnnotations(annotations map[string]string) map[string]string {
	keys := []string{MetricSpecsAnnotation, MetricStatusesAnnotation, ConditionsAnnotation, BehaviorSpecsAnnotation}
	found := false
	for _, k := range keys {
		if _, ok := annotations[k]; ok {
			found = true
		}
	}
	if !found {
		return annotations
	}
	out := maps.Clone(annotations)
	for _, k := range keys {
		delete(out, k)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func cpuUtilizationMetric(percent int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{
			Name:   corev1.ResourceCPU,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(percent)},
		},
	}
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
