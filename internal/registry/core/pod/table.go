package pod

import (
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME READY STATUS RESTARTS AGE and, for -o wide, IP NODE
// NOMINATED NODE READINESS GATES, as kubectl get pods does.
func Table() *printers.Table[*corev1.Pod] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Ready", Type: "string", Description: "The aggregate readiness state of this pod for accepting traffic."},
		{Name: "Status", Type: "string", Description: "The aggregate status of the containers in this pod."},
		{Name: "Restarts", Type: "string", Description: "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."},
		printers.AgeColumn(),
		{Name: "IP", Type: "string", Priority: 1, Description: corev1.PodStatus{}.SwaggerDoc()["podIP"]},
		{Name: "Node", Type: "string", Priority: 1, Description: corev1.PodSpec{}.SwaggerDoc()["nodeName"]},
		{Name: "Nominated Node", Type: "string", Priority: 1, Description: corev1.PodStatus{}.SwaggerDoc()["nominatedNodeName"]},
		{Name: "Readiness Gates", Type: "string", Priority: 1, Description: corev1.PodSpec{}.SwaggerDoc()["readinessGates"]},
	}
	return printers.New(columns, podCells)
}

func podCells(pod *corev1.Pod, now time.Time) []any {
	s := podSummary(pod)
	restarts := strconv.Itoa(s.restarts)
	if s.restarts != 0 && !s.lastRestart.IsZero() {
		restarts = fmt.Sprintf("%d (%s ago)", s.restarts, printers.Age(s.lastRestart, now))
	}
	return []any{
		pod.Name,
		fmt.Sprintf("%d/%d", s.ready, s.total),
		s.reason,
		restarts,
		printers.Age(pod.CreationTimestamp, now),
		orNone(podIP(pod)),
		orNone(pod.Spec.NodeName),
		orNone(pod.Status.NominatedNodeName),
		readinessGates(pod),
	}
}

// summary is what the READY, STATUS and RESTARTS cells show.
type summary struct {
	ready, total, restarts int
	reason                 string
	lastRestart            metav1.Time
}

// podSummary is kubectl's reading of a pod's status: the phase or reason,
// overridden by init container progress, then by the waiting or
// terminated reason of a container, then by Terminating.
func podSummary(pod *corev1.Pod) summary {
	s := summary{total: len(pod.Spec.Containers), reason: string(pod.Status.Phase)}
	if pod.Status.Reason != "" {
		s.reason = pod.Status.Reason
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			s.reason = corev1.PodReasonSchedulingGated
		}
	}
	sidecars := map[string]bool{}
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars[c.Name] = true
			s.total++
		}
	}
	initializing, sidecarRestarts, lastSidecarRestart := initSummary(pod, sidecars, &s)
	if !initializing || conditionTrue(pod, corev1.PodInitialized) {
		s.restarts, s.lastRestart = sidecarRestarts, lastSidecarRestart
		containerSummary(pod, &s)
	}
	if pod.DeletionTimestamp != nil && pod.Status.Reason == "NodeLost" {
		s.reason = "Unknown"
	} else if pod.DeletionTimestamp != nil && pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
		s.reason = "Terminating"
	}
	return s
}

// initSummary walks the init containers; it reports whether the pod is
// still initializing and the restarts of its sidecars.
func initSummary(pod *corev1.Pod, sidecars map[string]bool, s *summary) (bool, int, metav1.Time) {
	sidecarRestarts, lastSidecarRestart := 0, metav1.Time{}
	for i, c := range pod.Status.InitContainerStatuses {
		s.restarts += int(c.RestartCount)
		if t := c.LastTerminationState.Terminated; t != nil && s.lastRestart.Before(&t.FinishedAt) {
			s.lastRestart = t.FinishedAt
		}
		if sidecars[c.Name] {
			sidecarRestarts += int(c.RestartCount)
			if t := c.LastTerminationState.Terminated; t != nil && lastSidecarRestart.Before(&t.FinishedAt) {
				lastSidecarRestart = t.FinishedAt
			}
		}
		switch {
		case c.State.Terminated != nil && c.State.Terminated.ExitCode == 0:
			continue
		case sidecars[c.Name] && c.Started != nil && *c.Started:
			if c.Ready {
				s.ready++
			}
			continue
		case c.State.Terminated != nil:
			t := c.State.Terminated
			switch {
			case t.Reason != "":
				s.reason = "Init:" + t.Reason
			case t.Signal != 0:
				s.reason = fmt.Sprintf("Init:Signal:%d", t.Signal)
			default:
				s.reason = fmt.Sprintf("Init:ExitCode:%d", t.ExitCode)
			}
		case c.State.Waiting != nil && c.State.Waiting.Reason != "" && c.State.Waiting.Reason != "PodInitializing":
			s.reason = "Init:" + c.State.Waiting.Reason
		default:
			s.reason = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		return true, sidecarRestarts, lastSidecarRestart
	}
	return false, sidecarRestarts, lastSidecarRestart
}

// containerSummary reads the regular containers, last to first, so the
// first container's state wins.
func containerSummary(pod *corev1.Pod, s *summary) {
	hasRunning := false
	for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
		c := pod.Status.ContainerStatuses[i]
		s.restarts += int(c.RestartCount)
		if t := c.LastTerminationState.Terminated; t != nil && s.lastRestart.Before(&t.FinishedAt) {
			s.lastRestart = t.FinishedAt
		}
		switch t := c.State.Terminated; {
		case c.State.Waiting != nil && c.State.Waiting.Reason != "":
			s.reason = c.State.Waiting.Reason
		case t != nil && t.Reason != "":
			s.reason = t.Reason
		case t != nil && t.Signal != 0:
			s.reason = fmt.Sprintf("Signal:%d", t.Signal)
		case t != nil:
			s.reason = fmt.Sprintf("ExitCode:%d", t.ExitCode)
		case c.Ready && c.State.Running != nil:
			hasRunning = true
			s.ready++
		}
	}
	if s.reason == "Completed" && hasRunning {
		s.reason = "NotReady"
		if conditionTrue(pod, corev1.PodReady) {
			s.reason = "Running"
		}
	}
}

func conditionTrue(pod *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func podIP(pod *corev1.Pod) string {
	if len(pod.Status.PodIPs) > 0 {
		return pod.Status.PodIPs[0].IP
	}
	return ""
}

// readinessGates counts the gates whose condition is True.
func readinessGates(pod *corev1.Pod) string {
	if len(pod.Spec.ReadinessGates) == 0 {
		return "<none>"
	}
	trueConditions := 0
	for _, g := range pod.Spec.ReadinessGates {
		for _, c := range pod.Status.Conditions {
			if c.Type == g.ConditionType {
				if c.Status == corev1.ConditionTrue {
					trueConditions++
				}
				break
			}
		}
	}
	return fmt.Sprintf("%d/%d", trueConditions, len(pod.Spec.ReadinessGates))
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
