package podgc

import (
	"context"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// markFailedAndDelete moves a Pod that is not yet Succeeded or Failed to
// Failed (with cond, if any) and deletes it with no grace period. The
// status patch carries the Pod's UID, so a Pod recreated under the same
// name is not touched.
func (c *Controller) markFailedAndDelete(ctx context.Context, p *corev1.Pod, cond *corev1.PodCondition) error {
	if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
		patch, err := failedStatusPatch(p, cond, metav1.NewTime(c.clock.Now()))
		if err != nil {
			return err
		}
		if _, err := c.client.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
			return err
		}
	}
	return c.client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, *metav1.NewDeleteOptions(0))
}

// failedStatusPatch is a strategic merge patch setting phase Failed and
// cond (conditions merge by type): its transition time is now unless the
// Pod already had the condition with the same status.
func failedStatusPatch(p *corev1.Pod, cond *corev1.PodCondition, now metav1.Time) ([]byte, error) {
	status := map[string]any{"phase": corev1.PodFailed}
	if cond != nil {
		c := cond.DeepCopy()
		c.LastTransitionTime = now
		for _, old := range p.Status.Conditions {
			if old.Type == c.Type && old.Status == c.Status {
				c.LastTransitionTime = old.LastTransitionTime
			}
		}
		status["conditions"] = []corev1.PodCondition{*c}
	}
	return json.Marshal(map[string]any{
		"metadata": map[string]any{"uid": p.UID},
		"status":   status,
	})
}
