package scheduler

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
)

var podsGVR = corev1.SchemeGroupVersion.WithResource("pods")

type fakeEnv struct {
	s        *Scheduler
	client   *fake.Clientset
	recorder *events.FakeRecorder
}

// startFake runs a Scheduler on a fake clientset whose pods/binding sets
// nodeName and PodScheduled True, as the API server does.
func startFake(t *testing.T, objs ...runtime.Object) *fakeEnv {
	t.Helper()
	objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}})
	client := fake.NewClientset(objs...)
	client.PrependReactor("create", "pods", bindReactor(client))
	rec := events.NewFakeRecorder(100)
	factory := informers.NewSharedInformerFactory(client, 0)
	s, err := New(client, rec, factory, Options{Deterministic: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
		factory.Shutdown()
	})
	return &fakeEnv{s: s, client: client, recorder: rec}
}

func bindReactor(client *fake.Clientset) k8stesting.ReactionFunc {
	return func(action k8stesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() != "binding" {
			return false, nil, nil
		}
		b := action.(k8stesting.CreateAction).GetObject().(*corev1.Binding)
		obj, err := client.Tracker().Get(podsGVR, action.GetNamespace(), b.Name)
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*corev1.Pod).DeepCopy()
		pod.Spec.NodeName = b.Target.Name
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}
		return true, b, client.Tracker().Update(podsGVR, pod, action.GetNamespace())
	}
}

func (e *fakeEnv) pod(t *testing.T, name string) *corev1.Pod {
	t.Helper()
	p, err := e.client.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return cond(), nil
	}); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// waitEvent reads recorded events until one starts with prefix.
func (e *fakeEnv) waitEvent(t *testing.T, prefix string) string {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev := <-e.recorder.Events:
			if strings.HasPrefix(ev, prefix) {
				return ev
			}
		case <-timeout:
			t.Fatalf("no event %q", prefix)
		}
	}
}

// Pods are bound through pods/binding and spread by LeastAllocated; the
// assumed pods count before the informer shows the bindings.
func TestSchedulerBindsAndSpreads(t *testing.T) {
	objs := []runtime.Object{testNode("n1"), testNode("n2"), testNode("n3")}
	for _, name := range []string{"p1", "p2", "p3", "p4", "p5", "p6"} {
		objs = append(objs, testPod(name, requests("500m", "1Gi")))
	}
	// Neither another scheduler's pod nor a gated one is touched.
	objs = append(objs, testPod("other", func(p *corev1.Pod) { p.Spec.SchedulerName = "other" }),
		testPod("gated", func(p *corev1.Pod) { p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "g"}} }))
	e := startFake(t, objs...)
	perNode := map[string]int{}
	waitFor(t, "all six pods bound", func() bool {
		clear(perNode)
		for _, name := range []string{"p1", "p2", "p3", "p4", "p5", "p6"} {
			if n := e.pod(t, name).Spec.NodeName; n != "" {
				perNode[n]++
			}
		}
		return perNode["n1"]+perNode["n2"]+perNode["n3"] == 6
	})
	if perNode["n1"] != 2 || perNode["n2"] != 2 || perNode["n3"] != 2 {
		t.Fatalf("pods per node = %v, want 2 each", perNode)
	}
	e.waitEvent(t, "Normal Scheduled Successfully assigned default/")
	for _, name := range []string{"other", "gated"} {
		if n := e.pod(t, name).Spec.NodeName; n != "" {
			t.Fatalf("%s bound to %s", name, n)
		}
	}
}

// A pod no node fits gets PodScheduled False/Unschedulable and a
// FailedScheduling event with upstream's message, waits parked, and is
// bound once a matching node appears.
func TestSchedulerUnschedulableUntilANodeFits(t *testing.T) {
	e := startFake(t, testNode("n1"), testPod("p", nodeSelector("disk", "ssd")))
	const msg = "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
	if ev := e.waitEvent(t, "Warning FailedScheduling"); ev != "Warning FailedScheduling "+msg {
		t.Fatalf("event %q", ev)
	}
	waitFor(t, "PodScheduled False", func() bool {
		for _, c := range e.pod(t, "p").Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable && c.Message == msg {
				return !c.LastTransitionTime.IsZero()
			}
		}
		return false
	})
	waitFor(t, "the pod parked", func() bool { return e.s.queue.parked("default/p") })
	if _, err := e.client.CoreV1().Nodes().Create(context.Background(), testNode("n2", nodeLabels("disk", "ssd")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the pod bound to n2", func() bool { return e.pod(t, "p").Spec.NodeName == "n2" })
}

// A cordoned node gets no pods; uncordoning it retries the parked pod.
func TestSchedulerCordonedNode(t *testing.T) {
	e := startFake(t, testNode("n1", cordoned), testPod("p"))
	e.waitEvent(t, "Warning FailedScheduling 0/1 nodes are available: 1 node(s) were unschedulable.")
	waitFor(t, "the pod parked", func() bool { return e.s.queue.parked("default/p") })
	n := testNode("n1")
	if _, err := e.client.CoreV1().Nodes().Update(context.Background(), n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the pod bound", func() bool { return e.pod(t, "p").Spec.NodeName == "n1" })
}

// Upstream's queue: parked pods come back on a move request, after five
// minutes by the flush, and an attempt overlapping a move request is
// backed off rather than parked.
func TestSchedulingQueue(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	q := newSchedulingQueue(clk)
	defer q.q.ShutDown()
	q.failed("ns/a", q.cycle())
	if !q.parked("ns/a") {
		t.Fatal("a not parked")
	}
	clk.Step(4 * time.Minute)
	q.flush()
	if !q.parked("ns/a") {
		t.Fatal("a flushed before five minutes")
	}
	clk.Step(time.Minute)
	q.flush()
	if q.parked("ns/a") {
		t.Fatal("a still parked after five minutes")
	}
	// Backed off by 1 s (its first failure), then active.
	waitFor(t, "a waiting in backoff", func() bool { return clk.HasWaiters() })
	clk.Step(initialBackoff)
	waitFor(t, "a active", func() bool { return q.q.Len() == 1 })

	started := q.cycle()
	q.moveAll(nil)
	q.failed("ns/b", started)
	if q.parked("ns/b") {
		t.Fatal("b parked although a move request came during its attempt")
	}
	q.failed("ns/c", q.cycle())
	q.moveAll(func(k string) bool { return k != "ns/c" })
	if !q.parked("ns/c") {
		t.Fatal("c moved although the match excluded it")
	}
}

// Heartbeats do not retry parked pods; what filters read does.
func TestNodeSchedulingChanged(t *testing.T) {
	base := testNode("n")
	heartbeat := base.DeepCopy()
	heartbeat.Status.Conditions[0].LastHeartbeatTime = metav1.Now()
	heartbeat.ResourceVersion = "2"
	for _, tc := range []struct {
		name string
		cur  *corev1.Node
		want bool
	}{
		{"heartbeat", heartbeat, false},
		{"cordon", testNode("n", cordoned), true},
		{"label", testNode("n", nodeLabels("zone", "a")), true},
		{"taint", testNode("n", nodeTaint("k", "v", corev1.TaintEffectNoSchedule)), true},
		{"allocatable", testNode("n", allocatable(corev1.ResourceCPU, "8")), true},
		{"not ready", testNode("n", func(n *corev1.Node) { n.Status.Conditions[0].Status = corev1.ConditionFalse }), true},
	} {
		if got := nodeSchedulingChanged(base, tc.cur); got != tc.want {
			t.Errorf("%s: changed = %v, want %v", tc.name, got, tc.want)
		}
	}
}
