package scheduler

import (
	"context"
	"encoding/json"
	"errors"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Event reasons and actions kube-scheduler reports.
const (
	eventScheduled        = "Scheduled"
	eventFailedScheduling = "FailedScheduling"
	actionBinding         = "Binding"
	actionScheduling      = "Scheduling"
	// maxEventMessage is upstream's cap on a FailedScheduling note.
	maxEventMessage = 1024
)

// bind posts pods/binding; the API server sets nodeName and PodScheduled
// True. On failure the assumed pod is forgotten and retried with backoff.
func (s *Scheduler) bind(ctx context.Context, key string, pi *podInfo, host string) {
	pod := pi.pod
	b := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: host},
	}
	err := s.client.CoreV1().Pods(pod.Namespace).Bind(ctx, b, metav1.CreateOptions{})
	if err == nil {
		s.queue.remove(key)
		s.recorder.Eventf(pod, nil, corev1.EventTypeNormal, eventScheduled, actionBinding, "Successfully assigned %v/%v to %v", pod.Namespace, pod.Name, host)
		return
	}
	s.cache.forget(key)
	if ctx.Err() != nil || apierrors.IsNotFound(err) {
		return
	}
	s.logger.Info("binding failed", "pod", key, "node", host, "err", err)
	msg := "Binding rejected: " + err.Error()
	s.reportFailure(ctx, pod, corev1.PodReasonSchedulerError, msg)
	s.queue.retry(key)
}

// handleFailure reports a pod no node fits (reason Unschedulable, the pod
// parked until the cluster changes) or a scheduling error (reason
// SchedulerError, retried with backoff).
func (s *Scheduler) handleFailure(ctx context.Context, key string, pod *corev1.Pod, err error, cycle int64) {
	var fe *fitError
	if errors.As(err, &fe) {
		s.queue.failed(key, cycle)
		s.reportFailure(ctx, pod, corev1.PodReasonUnschedulable, fe.Error())
		return
	}
	s.queue.retry(key)
	s.reportFailure(ctx, pod, corev1.PodReasonSchedulerError, err.Error())
}

// reportFailure records the FailedScheduling event and writes
// PodScheduled False through pods/status when it changed.
func (s *Scheduler) reportFailure(ctx context.Context, pod *corev1.Pod, reason, msg string) {
	s.recorder.Eventf(pod, nil, corev1.EventTypeWarning, eventFailedScheduling, actionScheduling, "%s", truncate(msg))
	cond := corev1.PodCondition{
		Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: reason, Message: msg,
		ObservedGeneration: pod.Generation,
	}
	for _, c := range pod.Status.Conditions {
		if c.Type != corev1.PodScheduled {
			continue
		}
		if c.Status == cond.Status && c.Reason == cond.Reason && c.Message == cond.Message && c.ObservedGeneration == cond.ObservedGeneration {
			return
		}
		if c.Status == cond.Status {
			cond.LastTransitionTime = c.LastTransitionTime
		}
	}
	if cond.LastTransitionTime.IsZero() {
		cond.LastTransitionTime = metav1.NewTime(s.clock.Now())
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": []corev1.PodCondition{cond}}})
	if err != nil {
		return
	}
	if _, err := s.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil && ctx.Err() == nil && !apierrors.IsNotFound(err) {
		s.logger.Info("writing PodScheduled failed", "pod", podKey(pod), "err", err)
	}
}

// truncate is upstream's cut of an event note to 1024 bytes.
func truncate(msg string) string {
	const suffix = " ..."
	if len(msg) <= maxEventMessage {
		return msg
	}
	return msg[:maxEventMessage-len(suffix)] + suffix
}
