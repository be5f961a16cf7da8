package scheduler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The FailedScheduling message: reasons counted per node, sorted as
// strings, then DefaultPreemption's verdict, in upstream's words.
func TestFitErrorMessage(t *testing.T) {
	never := corev1.PreemptNever
	cases := []struct {
		name  string
		nodes []*corev1.Node
		bound []*corev1.Pod
		pod   *corev1.Pod
		want  string
	}{{
		name:  "selector matches nothing",
		nodes: []*corev1.Node{testNode("a"), testNode("b"), testNode("c")},
		pod:   testPod("p", nodeSelector("disk", "nvme")),
		want:  "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
	}, {
		name:  "taint and cpu",
		nodes: []*corev1.Node{testNode("a", nodeTaint("node-role.kubernetes.io/control-plane", "", corev1.TaintEffectNoSchedule)), testNode("b"), testNode("c")},
		pod:   testPod("p", requests("5", "")),
		want:  "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.",
	}, {
		name:  "several reasons on one node",
		nodes: []*corev1.Node{testNode("a"), testNode("b", cordoned)},
		pod:   testPod("p", requests("5", "9Gi")),
		want:  "0/2 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) were unschedulable. preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.",
	}, {
		name:  "anti-affinity",
		nodes: []*corev1.Node{testNode("a"), testNode("b")},
		bound: []*corev1.Pod{testPod("x", onNode("a"), podLabels("app", "web")), testPod("y", onNode("b"), podLabels("app", "web"))},
		pod:   testPod("p", requiredAntiAffinity(podAffinityTerm(corev1.LabelHostname, "app", "web"))),
		want:  "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
	}, {
		name:  "preemptionPolicy Never",
		nodes: []*corev1.Node{testNode("a")},
		pod:   testPod("p", requests("5", ""), func(p *corev1.Pod) { p.Spec.PreemptionPolicy = &never }),
		want:  "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.",
	}, {
		name: "no nodes",
		pod:  testPod("p"),
		want: "no nodes available to schedule pods",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := testScheduler(t, tc.nodes, tc.bound)
			_, _, err := s.schedule(podKey(tc.pod), tc.pod)
			if err == nil {
				t.Fatal("scheduled, want a failure")
			}
			if err.Error() != tc.want {
				t.Fatalf("message\n got %q\nwant %q", err.Error(), tc.want)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	long := make([]byte, 2000)
	for i := range long {
		long[i] = 'x'
	}
	got := truncate(string(long))
	if len(got) != maxEventMessage || got[len(got)-4:] != " ..." {
		t.Fatalf("truncate: len %d, tail %q", len(got), got[len(got)-4:])
	}
	if truncate("short") != "short" {
		t.Fatal("a short message is kept")
	}
}
