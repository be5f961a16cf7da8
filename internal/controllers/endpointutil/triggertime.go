package endpointutil

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TriggerTimeTracker computes the endpoints.kubernetes.io/last-change-
// trigger-time of a Service's endpoints as upstream does: the earliest of
// the changes not yet reflected — a Pod's Ready condition transition, the
// Service's creation — or the Service's creation time on its first sync.
// The annotation feeds the network-programming latency SLI.
type TriggerTimeTracker struct {
	mu     sync.Mutex
	states map[string]triggerState
}

type triggerState struct {
	service time.Time
	pods    map[string]time.Time
}

// NewTriggerTimeTracker returns an empty tracker.
func NewTriggerTimeTracker() *TriggerTimeTracker {
	return &TriggerTimeTracker{states: map[string]triggerState{}}
}

// Compute records the Service's and Pods' current trigger times and
// returns the time to annotate (zero: none).
func (t *TriggerTimeTracker) Compute(svc *corev1.Service, pods []*corev1.Pod) time.Time {
	key := svc.Namespace + "/" + svc.Name
	t.mu.Lock()
	defer t.mu.Unlock()
	prev, known := t.states[key]
	next := triggerState{service: svc.CreationTimestamp.Time, pods: make(map[string]time.Time, len(pods))}
	var earliest time.Time
	consider := func(at, before time.Time) {
		if at.After(before) && (earliest.IsZero() || at.Before(earliest)) {
			earliest = at
		}
	}
	for _, pod := range pods {
		at := readyTransition(pod)
		if at.IsZero() {
			continue
		}
		next.pods[pod.Name] = at
		consider(at, prev.pods[pod.Name])
	}
	consider(next.service, prev.service)
	t.states[key] = next
	if !known {
		return svc.CreationTimestamp.Time
	}
	return earliest
}

// Delete forgets a Service that is gone.
func (t *TriggerTimeTracker) Delete(namespace, name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.states, namespace+"/"+name)
}

func readyTransition(pod *corev1.Pod) time.Time {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

// TriggerTimeAnnotation sets or clears the annotation in annotations.
func TriggerTimeAnnotation(annotations map[string]string, at time.Time) {
	if at.IsZero() {
		delete(annotations, corev1.EndpointsLastChangeTriggerTime)
		return
	}
	annotations[corev1.EndpointsLastChangeTriggerTime] = at.UTC().Format(time.RFC3339Nano)
}
