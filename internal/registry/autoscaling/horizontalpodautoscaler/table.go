package horizontalpodautoscaler

import (
	"fmt"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// maxTargets is how many metrics the TARGETS column shows.
const maxTargets = 2

// Table prints NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE.
func Table() *printers.Table[*autoscalingv2.HorizontalPodAutoscaler] {
	spec, status := autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc(), autoscalingv2.HorizontalPodAutoscalerStatus{}.SwaggerDoc()
	return printers.New([]metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Reference", Type: "string", Description: spec["scaleTargetRef"]},
		{Name: "Targets", Type: "string", Description: spec["metrics"]},
		{Name: "MinPods", Type: "string", Description: spec["minReplicas"]},
		{Name: "MaxPods", Type: "string", Description: spec["maxReplicas"]},
		{Name: "Replicas", Type: "string", Description: status["currentReplicas"]},
		printers.AgeColumn(),
	}, cells)
}

func cells(hpa *autoscalingv2.HorizontalPodAutoscaler, now time.Time) []any {
	minPods := "<unset>"
	if hpa.Spec.MinReplicas != nil {
		minPods = fmt.Sprintf("%d", *hpa.Spec.MinReplicas)
	}
	reference := hpa.Spec.ScaleTargetRef.Kind + "/" + hpa.Spec.ScaleTargetRef.Name
	// MAXPODS and REPLICAS are integers although the columns say string,
	// as upstream prints them.
	return []any{hpa.Name, reference, targets(hpa.Spec.Metrics, hpa.Status.CurrentMetrics), minPods,
		int64(hpa.Spec.MaxReplicas), int64(hpa.Status.CurrentReplicas), printers.Age(hpa.CreationTimestamp, now)}
}

// targets renders "current/target" per metric, matched with the status by
// position, at most maxTargets of them.
func targets(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	if len(specs) == 0 {
		return "<none>"
	}
	list := make([]string, 0, len(specs))
	for i := range specs {
		var st *autoscalingv2.MetricStatus
		if i < len(statuses) {
			st = &statuses[i]
		}
		list = append(list, target(&specs[i], st))
	}
	if len(list) > maxTargets {
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:maxTargets], ", "), len(list)-maxTargets)
	}
	return strings.Join(list, ", ")
}

func target(spec *autoscalingv2.MetricSpec, st *autoscalingv2.MetricStatus) string {
	switch {
	case spec.Type == autoscalingv2.ExternalMetricSourceType && spec.External != nil:
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.External != nil {
			cur = &st.External.Current
		}
		return valueTarget(spec.External.Target, cur)
	case spec.Type == autoscalingv2.ObjectMetricSourceType && spec.Object != nil:
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.Object != nil {
			cur = &st.Object.Current
		}
		return valueTarget(spec.Object.Target, cur)
	case spec.Type == autoscalingv2.PodsMetricSourceType && spec.Pods != nil:
		current := "<unknown>"
		if st != nil && st.Pods != nil {
			current = quantity(st.Pods.Current.AverageValue)
		}
		return fmt.Sprintf("%s/%s", current, quantity(spec.Pods.Target.AverageValue))
	case spec.Type == autoscalingv2.ResourceMetricSourceType && spec.Resource != nil:
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.Resource != nil {
			cur = &st.Resource.Current
		}
		return string(spec.Resource.Name) + ": " + resourceTarget(spec.Resource.Target, cur)
	case spec.Type == autoscalingv2.ContainerResourceMetricSourceType && spec.ContainerResource != nil:
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.ContainerResource != nil {
			cur = &st.ContainerResource.Current
		}
		return string(spec.ContainerResource.Name) + ": " + resourceTarget(spec.ContainerResource.Target, cur)
	default:
		return "<unknown type>"
	}
}

// valueTarget prints an Object or External metric: an average per pod
// is marked "(avg)".
func valueTarget(t autoscalingv2.MetricTarget, cur *autoscalingv2.MetricValueStatus) string {
	current := "<unknown>"
	if t.AverageValue != nil {
		if cur != nil && cur.AverageValue != nil {
			current = cur.AverageValue.String()
		}
		return fmt.Sprintf("%s/%s (avg)", current, t.AverageValue.String())
	}
	if cur != nil {
		current = quantity(cur.Value)
	}
	return fmt.Sprintf("%s/%s", current, quantity(t.Value))
}

// resourceTarget prints a (container) resource metric: a raw average, or
// a utilization in percent.
func resourceTarget(t autoscalingv2.MetricTarget, cur *autoscalingv2.MetricValueStatus) string {
	current := "<unknown>"
	if t.AverageValue != nil {
		if cur != nil {
			current = quantity(cur.AverageValue)
		}
		return fmt.Sprintf("%s/%s", current, t.AverageValue.String())
	}
	if cur != nil && cur.AverageUtilization != nil {
		current = fmt.Sprintf("%d%%", *cur.AverageUtilization)
	}
	target := "<auto>"
	if t.AverageUtilization != nil {
		target = fmt.Sprintf("%d%%", *t.AverageUtilization)
	}
	return fmt.Sprintf("%s/%s", current, target)
}

// quantity prints a quantity; unset is "0", as a zero Quantity prints.
func quantity(q *resource.Quantity) string {
	if q == nil {
		return "0"
	}
	return q.String()
}
