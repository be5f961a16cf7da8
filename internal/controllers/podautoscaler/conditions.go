package podautoscaler

import (
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// setCondition sets a condition of hpa (adding it when missing); its
// transition time moves only when the status changes.
func (c *Controller) setCondition(hpa *autoscalingv2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus, reason, format string, args ...any) {
	conds := hpa.Status.Conditions
	i := 0
	for ; i < len(conds) && conds[i].Type != t; i++ {
	}
	if i == len(conds) {
		conds = append(conds, autoscalingv2.HorizontalPodAutoscalerCondition{Type: t})
	}
	cond := &conds[i]
	if cond.Status != status {
		cond.LastTransitionTime = metav1.NewTime(c.clock.Now())
	}
	cond.Status, cond.Reason, cond.Message = status, reason, fmt.Sprintf(format, args...)
	hpa.Status.Conditions = conds
}

// removeCondition drops every condition of type t.
func removeCondition(hpa *autoscalingv2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType) {
	var kept []autoscalingv2.HorizontalPodAutoscalerCondition
	for _, cond := range hpa.Status.Conditions {
		if cond.Type != t {
			kept = append(kept, cond)
		}
	}
	if len(kept) != len(hpa.Status.Conditions) {
		hpa.Status.Conditions = kept
	}
}

// event records an event about hpa; the action says which step of the
// sync it comes from.
func (c *Controller) event(hpa *autoscalingv2.HorizontalPodAutoscaler, eventType, reason, format string, args ...any) {
	action := "Sync"
	switch reason {
	case "SuccessfulRescale", "FailedRescale":
		action = "Scale"
	}
	c.recorder.Eventf(hpa, nil, eventType, reason, action, format, args...)
}
