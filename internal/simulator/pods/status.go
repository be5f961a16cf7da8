package pods

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Condition reasons kubelet writes.
const (
	reasonPodCompleted           = "PodCompleted"
	reasonContainersNotReady     = "ContainersNotReady"
	reasonReadinessGatesNotReady = "ReadinessGatesNotReady"
)

// kubeletConditions are the condition types kubelet owns, in the order it
// writes them after everyone else's.
var kubeletConditions = []corev1.PodConditionType{
	corev1.PodReadyToStartContainers, corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady, corev1.PodScheduled,
}

// containerID names a simulated container; stable for a pod, a container
// and a restart.
func containerID(pod *corev1.Pod, name string, restarts int32) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%s/%d", pod.UID, name, restarts))
	return "kapi-simulated://" + hex.EncodeToString(sum[:])
}

func isSidecar(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// running is the status of pod once its sandbox is up with ip on a node
// with hostIP: init containers have completed in order (sidecars keep
// running), containers run, started and ready.
func running(pod *corev1.Pod, hostIP, ip string, now metav1.Time) corev1.PodStatus {
	st := pod.Status.DeepCopy()
	st.Phase = corev1.PodRunning
	st.HostIP, st.HostIPs = hostIP, []corev1.HostIP{{IP: hostIP}}
	st.PodIP, st.PodIPs = ip, []corev1.PodIP{{IP: ip}}
	if st.StartTime == nil {
		st.StartTime = &now
	}
	st.Reason, st.Message = "", ""
	st.InitContainerStatuses = nil
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, ContainerID: containerID(pod, c.Name, 0)}
		if isSidecar(c) {
			cs.Ready, cs.Started = true, ptr.To(true)
			cs.State.Running = &corev1.ContainerStateRunning{StartedAt: now}
		} else {
			// A completed init container counts as ready, as kubelet reports it.
			cs.Ready, cs.Started = true, ptr.To(false)
			cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: now, FinishedAt: now, ContainerID: cs.ContainerID}
		}
		st.InitContainerStatuses = append(st.InitContainerStatuses, cs)
	}
	st.ContainerStatuses = nil
	for _, c := range pod.Spec.Containers {
		st.ContainerStatuses = append(st.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ContainerID: containerID(pod, c.Name, 0),
			Ready: true, Started: ptr.To(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		})
	}
	setConditions(pod, st, now)
	return *st
}

// terminated is the status of pod once every container exited: with
// exitCode for the regular containers (sidecars stop cleanly), phase
// Succeeded when it is 0 and Failed otherwise.
func terminated(pod *corev1.Pod, exitCode int32, now metav1.Time) corev1.PodStatus {
	st := pod.Status.DeepCopy()
	stop := func(statuses []corev1.ContainerStatus, code func(name string) int32) {
		for i := range statuses {
			cs := &statuses[i]
			if cs.State.Terminated != nil {
				continue
			}
			started := now
			if cs.State.Running != nil {
				started = cs.State.Running.StartedAt
			}
			c := code(cs.Name)
			reason := "Completed"
			if c != 0 {
				reason = "Error"
			}
			cs.Ready, cs.Started = false, ptr.To(false)
			cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: c, Reason: reason, StartedAt: started, FinishedAt: now, ContainerID: cs.ContainerID,
			}}
		}
	}
	stop(st.InitContainerStatuses, func(string) int32 { return 0 })
	stop(st.ContainerStatuses, func(string) int32 { return exitCode })
	st.Phase = corev1.PodSucceeded
	if exitCode != 0 {
		st.Phase = corev1.PodFailed
	}
	setConditions(pod, st, now)
	return *st
}

// setConditions writes kubelet's conditions for st into st: others'
// conditions first, unchanged, then kubelet's in its order; a condition
// whose status is unchanged keeps its lastTransitionTime.
func setConditions(pod *corev1.Pod, st *corev1.PodStatus, now metav1.Time) {
	terminal := st.Phase == corev1.PodSucceeded || st.Phase == corev1.PodFailed
	c := map[corev1.PodConditionType]corev1.PodCondition{}
	sandbox := corev1.ConditionTrue
	if terminal {
		sandbox = corev1.ConditionFalse
	}
	c[corev1.PodReadyToStartContainers] = corev1.PodCondition{Status: sandbox}
	c[corev1.PodInitialized] = corev1.PodCondition{Status: corev1.ConditionTrue}
	c[corev1.PodScheduled] = corev1.PodCondition{Status: corev1.ConditionTrue}
	containersReady := containersReadyCondition(st)
	c[corev1.ContainersReady] = containersReady
	c[corev1.PodReady] = readyCondition(pod, st, containersReady)
	if st.Phase == corev1.PodSucceeded {
		init := c[corev1.PodInitialized]
		init.Reason = reasonPodCompleted
		c[corev1.PodInitialized] = init
	}
	old := st.Conditions
	var out []corev1.PodCondition
	owned := func(t corev1.PodConditionType) bool {
		_, ok := c[t]
		return ok
	}
	for _, o := range old {
		if !owned(o.Type) {
			out = append(out, o)
		}
	}
	for _, t := range kubeletConditions {
		n := c[t]
		n.Type = t
		n.LastTransitionTime = now
		for _, o := range old {
			if o.Type == t && o.Status == n.Status {
				n.LastTransitionTime = o.LastTransitionTime
				n.LastProbeTime = o.LastProbeTime
			}
		}
		out = append(out, n)
	}
	st.Conditions = out
}

// containersReadyCondition is ContainersReady as kubelet computes it.
func containersReadyCondition(st *corev1.PodStatus) corev1.PodCondition {
	if st.Phase == corev1.PodSucceeded {
		return corev1.PodCondition{Status: corev1.ConditionFalse, Reason: reasonPodCompleted}
	}
	var unready []string
	for _, cs := range st.ContainerStatuses {
		if !cs.Ready {
			unready = append(unready, cs.Name)
		}
	}
	for _, cs := range st.InitContainerStatuses {
		if cs.State.Running != nil && !cs.Ready { // a sidecar
			unready = append(unready, cs.Name)
		}
	}
	if len(unready) > 0 {
		return corev1.PodCondition{Status: corev1.ConditionFalse, Reason: reasonContainersNotReady,
			Message: fmt.Sprintf("containers with unready status: [%s]", strings.Join(unready, " "))}
	}
	return corev1.PodCondition{Status: corev1.ConditionTrue}
}

// readyCondition is Ready: ContainersReady, and then every readiness
// gate's condition True, with kubelet's messages.
func readyCondition(pod *corev1.Pod, st *corev1.PodStatus, containersReady corev1.PodCondition) corev1.PodCondition {
	if containersReady.Status != corev1.ConditionTrue {
		return corev1.PodCondition{Status: containersReady.Status, Reason: containersReady.Reason, Message: containersReady.Message}
	}
	var msgs []string
	for _, g := range pod.Spec.ReadinessGates {
		var found *corev1.PodCondition
		for i := range st.Conditions {
			if st.Conditions[i].Type == g.ConditionType {
				found = &st.Conditions[i]
			}
		}
		switch {
		case found == nil:
			msgs = append(msgs, fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist.", string(g.ConditionType)))
		case found.Status != corev1.ConditionTrue:
			msgs = append(msgs, fmt.Sprintf("the status of pod readiness gate %q is not \"True\", but %v", string(g.ConditionType), found.Status))
		}
	}
	if len(msgs) > 0 {
		return corev1.PodCondition{Status: corev1.ConditionFalse, Reason: reasonReadinessGatesNotReady, Message: strings.Join(msgs, ", ")}
	}
	return corev1.PodCondition{Status: corev1.ConditionTrue}
}
