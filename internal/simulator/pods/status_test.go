package pods

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

var t0 = metav1.NewTime(time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC))

func cond(st corev1.PodStatus, t corev1.PodConditionType) corev1.PodCondition {
	for _, c := range st.Conditions {
		if c.Type == t {
			return c
		}
	}
	return corev1.PodCondition{}
}

func TestRunningStatus(t *testing.T) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: "u1"},
		Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "init1", Image: "busybox"}, {Name: "sidecar", Image: "envoy", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}},
			Containers:     []corev1.Container{{Name: "app", Image: "nginx"}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBestEffort, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.Add(-time.Minute))},
			{Type: "example.com/gate", Status: corev1.ConditionTrue},
		}},
	}
	st := running(pod, "172.16.0.10", "10.64.0.2", t0)
	if st.Phase != corev1.PodRunning || st.PodIP != "10.64.0.2" || st.HostIP != "172.16.0.10" || st.StartTime == nil || st.QOSClass != corev1.PodQOSBestEffort {
		t.Errorf("status = %+v", st)
	}
	var types []corev1.PodConditionType
	for _, c := range st.Conditions {
		types = append(types, c.Type)
		if c.Type != "example.com/gate" && c.Status != corev1.ConditionTrue {
			t.Errorf("condition %s = %s", c.Type, c.Status)
		}
	}
	if got, want := fmt.Sprint(types), "[example.com/gate PodReadyToStartContainers Initialized Ready ContainersReady PodScheduled]"; got != want {
		t.Errorf("conditions = %s, want %s", got, want)
	}
	if !cond(st, corev1.PodScheduled).LastTransitionTime.Time.Equal(t0.Add(-time.Minute)) {
		t.Error("PodScheduled's transition time changed")
	}
	init1, sidecar := st.InitContainerStatuses[0], st.InitContainerStatuses[1]
	if init1.State.Terminated == nil || init1.State.Terminated.Reason != "Completed" || !init1.Ready {
		t.Errorf("init container = %+v", init1)
	}
	if sidecar.State.Running == nil || !*sidecar.Started || !sidecar.Ready {
		t.Errorf("sidecar = %+v", sidecar)
	}
	app := st.ContainerStatuses[0]
	if app.State.Running == nil || !app.Ready || !*app.Started || app.Image != "nginx" || app.ContainerID == "" {
		t.Errorf("container = %+v", app)
	}
}

func TestReadinessGates(t *testing.T) {
	gate := corev1.PodReadinessGate{ConditionType: "example.com/lb"}
	for _, tc := range []struct {
		name    string
		conds   []corev1.PodCondition
		status  corev1.ConditionStatus
		message string
	}{
		{"missing", nil, corev1.ConditionFalse, `corresponding condition of pod readiness gate "example.com/lb" does not exist.`},
		{"false", []corev1.PodCondition{{Type: "example.com/lb", Status: corev1.ConditionFalse}}, corev1.ConditionFalse, `the status of pod readiness gate "example.com/lb" is not "True", but False`},
		{"true", []corev1.PodCondition{{Type: "example.com/lb", Status: corev1.ConditionTrue}}, corev1.ConditionTrue, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{ReadinessGates: []corev1.PodReadinessGate{gate}, Containers: []corev1.Container{{Name: "c"}}},
				Status: corev1.PodStatus{Conditions: tc.conds}}
			st := running(pod, "h", "i", t0)
			ready := cond(st, corev1.PodReady)
			if ready.Status != tc.status || ready.Message != tc.message {
				t.Errorf("Ready = %+v", ready)
			}
			if tc.status == corev1.ConditionFalse && ready.Reason != "ReadinessGatesNotReady" {
				t.Errorf("reason = %s", ready.Reason)
			}
			if cond(st, corev1.ContainersReady).Status != corev1.ConditionTrue {
				t.Error("ContainersReady must not depend on gates")
			}
		})
	}
}

func TestTerminatedStatus(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a"}, {Name: "b"}}}}
	later := metav1.NewTime(t0.Add(5 * time.Second))
	for _, tc := range []struct {
		code                          int32
		phase                         corev1.PodPhase
		reason, readyReason, readyMsg string
	}{
		{0, corev1.PodSucceeded, "Completed", "PodCompleted", ""},
		{3, corev1.PodFailed, "Error", "ContainersNotReady", "containers with unready status: [a b]"},
	} {
		pod.Status = running(pod, "h", "10.64.0.2", t0)
		st := terminated(pod, tc.code, later)
		if st.Phase != tc.phase {
			t.Errorf("exit %d: phase %s", tc.code, st.Phase)
		}
		for _, cs := range st.ContainerStatuses {
			term := cs.State.Terminated
			if term == nil || term.ExitCode != tc.code || term.Reason != tc.reason || !term.StartedAt.Equal(&t0) || !term.FinishedAt.Equal(&later) || cs.Ready {
				t.Errorf("exit %d: container %+v", tc.code, cs)
			}
		}
		ready := cond(st, corev1.PodReady)
		if ready.Status != corev1.ConditionFalse || ready.Reason != tc.readyReason || ready.Message != tc.readyMsg {
			t.Errorf("exit %d: Ready = %+v", tc.code, ready)
		}
		if c := cond(st, corev1.PodReadyToStartContainers); c.Status != corev1.ConditionFalse {
			t.Errorf("exit %d: PodReadyToStartContainers = %+v", tc.code, c)
		}
		if st.PodIP != "10.64.0.2" {
			t.Errorf("exit %d: the pod IP stays in the status, got %q", tc.code, st.PodIP)
		}
	}
}

func TestIPAMUnique(t *testing.T) {
	a := newIPAM()
	seen := map[netip.Addr]bool{}
	for i := range 253 {
		ip, err := a.allocate("n", "10.64.0.0/24", types.UID(fmt.Sprint(i)))
		if err != nil {
			t.Fatalf("allocation %d: %v", i, err)
		}
		if seen[ip] || ip.String() == "10.64.0.0" || ip.String() == "10.64.0.1" || ip.String() == "10.64.0.255" {
			t.Fatalf("allocation %d: %s reused or reserved", i, ip)
		}
		seen[ip] = true
	}
	if _, err := a.allocate("n", "10.64.0.0/24", "full"); err == nil {
		t.Fatal("a full /24 still hands out addresses")
	}
	again, _ := a.allocate("n", "10.64.0.0/24", "7")
	if again.String() != "10.64.0.9" {
		t.Errorf("a pod's second allocation = %s, want its own 10.64.0.9", again)
	}
	a.release("7")
	if ip, _ := a.allocate("n", "10.64.0.0/24", "new"); ip.String() != "10.64.0.9" {
		t.Errorf("after release got %s, want the freed 10.64.0.9", ip)
	}
	if a.claim("n", "10.64.0.9", "other") {
		t.Error("claiming another pod's address succeeded")
	}
	if ip, _ := a.allocate("m", "10.64.1.0/24", "x"); ip.String() != "10.64.1.2" {
		t.Errorf("another node's first address = %s", ip)
	}
}
