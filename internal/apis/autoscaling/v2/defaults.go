package v2

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// DefaultCPUUtilization is the CPU utilization target, in percent, of an
// HPA that names no metric.
const DefaultCPUUtilization = int32(80)

// RegisterDefaults adds the defaulting of autoscaling/v2 HPAs (and their
// lists) to scheme.
func RegisterDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&autoscalingv2.HorizontalPodAutoscaler{}, func(obj any) {
		SetDefaultsHorizontalPodAutoscaler(obj.(*autoscalingv2.HorizontalPodAutoscaler))
	})
	scheme.AddTypeDefaultingFunc(&autoscalingv2.HorizontalPodAutoscalerList{}, func(obj any) {
		list := obj.(*autoscalingv2.HorizontalPodAutoscalerList)
		for i := range list.Items {
			SetDefaultsHorizontalPodAutoscaler(&list.Items[i])
		}
	})
	return nil
}

// SetDefaultsHorizontalPodAutoscaler makes minReplicas 1, targets 80% CPU
// when no metric is named, and completes a behavior that is set.
func SetDefaultsHorizontalPodAutoscaler(hpa *autoscalingv2.HorizontalPodAutoscaler) {
	if hpa.Spec.MinReplicas == nil {
		hpa.Spec.MinReplicas = ptr.To[int32](1)
	}
	if len(hpa.Spec.Metrics) == 0 {
		hpa.Spec.Metrics = []autoscalingv2.MetricSpec{{
			Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricSource{
				Name:   corev1.ResourceCPU,
				Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(DefaultCPUUtilization)},
			},
		}}
	}
	SetDefaultsBehavior(hpa)
}

// SetDefaultsBehavior fills every unset part of a behavior that is set
// with the controller's historical behavior: scale up by at most 4 pods or
// 100% per 15s, without stabilization; scale down by at most 100% per 15s
// (its stabilization window stays unset: the controller's flag decides).
func SetDefaultsBehavior(hpa *autoscalingv2.HorizontalPodAutoscaler) {
	b := hpa.Spec.Behavior
	if b == nil {
		return
	}
	b.ScaleUp = fillScalingRules(b.ScaleUp, defaultScaleUpRules())
	b.ScaleDown = fillScalingRules(b.ScaleDown, defaultScaleDownRules())
}

func defaultScaleUpRules() *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: ptr.To[int32](0),
		SelectPolicy:               ptr.To(autoscalingv2.MaxChangePolicySelect),
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
}

func defaultScaleDownRules() *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{
		SelectPolicy: ptr.To(autoscalingv2.MaxChangePolicySelect),
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
}

// fillScalingRules returns defaults with what from sets copied over.
func fillScalingRules(from, defaults *autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	if from == nil {
		return defaults
	}
	if from.SelectPolicy != nil {
		defaults.SelectPolicy = from.SelectPolicy
	}
	if from.StabilizationWindowSeconds != nil {
		defaults.StabilizationWindowSeconds = from.StabilizationWindowSeconds
	}
	if from.Policies != nil {
		defaults.Policies = from.Policies
	}
	if from.Tolerance != nil {
		defaults.Tolerance = from.Tolerance
	}
	return defaults
}
