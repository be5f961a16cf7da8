package pods

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/kapi-dev/kapi/internal/simulator/nodes"
)

type fixture struct {
	t      *testing.T
	c      *Controller
	client *fake.Clientset
	clock  *testingclock.FakeClock
}

// newFixture is the controller over a fake client holding one simulated
// node, one real node and objs, with informers running and a fake clock.
func newFixture(t *testing.T, objs ...*corev1.Pod) *fixture {
	t.Helper()
	sim := nodes.Build(0, nodes.DefaultTemplate(), "v1", t0.Time)
	foreign := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "real"}, Spec: corev1.NodeSpec{PodCIDR: "10.99.0.0/24"}}
	client := fake.NewClientset(sim, foreign)
	for _, p := range objs {
		if _, err := client.CoreV1().Pods(p.Namespace).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	clk := testingclock.NewFakeClock(t0.Time)
	factory := informers.NewSharedInformerFactory(client, 0)
	c, err := New(client, factory.Core().V1().Pods(), factory.Core().V1().Nodes(), clk, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); factory.Shutdown() })
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return &fixture{t: t, c: c, client: client, clock: clk}
}

// sync syncs the pod and waits for the informer to see the result.
func (f *fixture) sync(name string, want func(*corev1.Pod) bool) *corev1.Pod {
	f.t.Helper()
	if err := f.c.sync(context.Background(), "ns/"+name); err != nil {
		f.t.Fatal(err)
	}
	return f.await(name, want)
}

// await waits for the informer to show the pod in the wanted state.
func (f *fixture) await(name string, want func(*corev1.Pod) bool) *corev1.Pod {
	f.t.Helper()
	var got *corev1.Pod
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		p, err := f.c.pods.Pods("ns").Get(name)
		if apierrors.IsNotFound(err) {
			got = nil
			return want(nil), nil
		}
		got = p
		return err == nil && want(p), nil
	})
	if err != nil {
		f.t.Fatalf("pod %s never reached the expected state; last %+v", name, got)
	}
	return got
}

func pod(name, node string, restart corev1.RestartPolicy, ann map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name), Annotations: ann},
		Spec: corev1.PodSpec{NodeName: node, RestartPolicy: restart, Containers: []corev1.Container{{Name: "c", Image: "img"}}}}
}

func phase(ph corev1.PodPhase) func(*corev1.Pod) bool {
	return func(p *corev1.Pod) bool { return p != nil && p.Status.Phase == ph }
}

// TestRunTime: a restartPolicy Never Pod runs for its annotated run time
// on the fake clock, then succeeds; its IP is freed.
func TestRunTime(t *testing.T) {
	f := newFixture(t, pod("job", nodes.Name(0), corev1.RestartPolicyNever, map[string]string{RunTimeAnnotation: "5s"}))
	p := f.sync("job", phase(corev1.PodRunning))
	if p.Status.PodIP != "10.64.0.2" || p.Status.HostIP != nodes.InternalIP(0).String() {
		t.Errorf("podIP %s hostIP %s", p.Status.PodIP, p.Status.HostIP)
	}
	f.clock.Step(4 * time.Second)
	f.sync("job", phase(corev1.PodRunning))
	f.clock.Step(time.Second)
	p = f.sync("job", phase(corev1.PodSucceeded))
	if term := p.Status.ContainerStatuses[0].State.Terminated; term == nil || !term.FinishedAt.Time.Equal(t0.Add(5*time.Second)) {
		t.Errorf("terminated = %+v", term)
	}
	if _, taken := f.c.ips.byPod[p.UID]; taken {
		t.Error("the IP of a finished pod is still held")
	}
}

// TestRestartAlwaysRunsOn: without a finite restart policy the run time
// does not apply; the pod runs until deleted.
func TestRestartAlwaysRunsOn(t *testing.T) {
	f := newFixture(t, pod("svc", nodes.Name(0), corev1.RestartPolicyAlways, nil))
	f.sync("svc", phase(corev1.PodRunning))
	f.clock.Step(time.Hour)
	f.sync("svc", phase(corev1.PodRunning))
}

// TestBadAnnotation: an unparseable annotation leaves the Pod Pending
// with CreateContainerConfigError rather than being ignored.
func TestBadAnnotation(t *testing.T) {
	f := newFixture(t, pod("bad", nodes.Name(0), corev1.RestartPolicyNever, map[string]string{ExitCodeAnnotation: "lots"}))
	p := f.sync("bad", func(p *corev1.Pod) bool { return p != nil && len(p.Status.ContainerStatuses) == 1 })
	w := p.Status.ContainerStatuses[0].State.Waiting
	if p.Status.Phase != corev1.PodPending || w == nil || w.Reason != "CreateContainerConfigError" {
		t.Errorf("status = %+v", p.Status)
	}
}

// TestOtherNodesUntouched: Pods on nodes kapi does not simulate, or on no
// node, are not written.
func TestOtherNodesUntouched(t *testing.T) {
	f := newFixture(t, pod("real", "real", corev1.RestartPolicyAlways, nil), pod("unbound", "", corev1.RestartPolicyAlways, nil))
	f.client.ClearActions()
	for _, name := range []string{"real", "unbound"} {
		if err := f.c.sync(context.Background(), "ns/"+name); err != nil {
			t.Fatal(err)
		}
	}
	if a := f.client.Actions(); len(a) != 0 {
		t.Errorf("actions = %v", a)
	}
}

// TestGracefulDeletion: a Pod being deleted gets a terminal status, then
// is deleted with grace period 0.
func TestGracefulDeletion(t *testing.T) {
	f := newFixture(t, pod("doomed", nodes.Name(0), corev1.RestartPolicyAlways, nil))
	f.sync("doomed", phase(corev1.PodRunning))
	cur, _ := f.client.CoreV1().Pods("ns").Get(context.Background(), "doomed", metav1.GetOptions{})
	cur.DeletionTimestamp = &t0
	cur.DeletionGracePeriodSeconds = new(int64)
	*cur.DeletionGracePeriodSeconds = 30
	if _, err := f.client.CoreV1().Pods("ns").Update(context.Background(), cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The informer must see the deletion before the sync whose actions
	// are checked; syncing earlier could do the whole job in a sync
	// whose actions were then cleared.
	f.await("doomed", func(p *corev1.Pod) bool { return p != nil && p.DeletionTimestamp != nil })
	f.client.ClearActions()
	f.sync("doomed", func(p *corev1.Pod) bool { return p == nil })
	var verbs []string
	for _, a := range f.client.Actions() {
		verbs = append(verbs, a.GetVerb()+"/"+a.GetSubresource())
	}
	if len(verbs) != 2 || verbs[0] != "update/status" || verbs[1] != "delete/" {
		t.Errorf("actions = %v, want the terminal status then the delete", verbs)
	}
}

// TestReadinessGateFlip: Ready follows the gate's condition.
func TestReadinessGateFlip(t *testing.T) {
	p := pod("gated", nodes.Name(0), corev1.RestartPolicyAlways, nil)
	p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "example.com/lb"}}
	f := newFixture(t, p)
	ready := func(s corev1.ConditionStatus) func(*corev1.Pod) bool {
		return func(p *corev1.Pod) bool {
			return p != nil && p.Status.Phase == corev1.PodRunning && cond(p.Status, corev1.PodReady).Status == s
		}
	}
	cur := f.sync("gated", ready(corev1.ConditionFalse)).DeepCopy()
	cur.Status.Conditions = append(cur.Status.Conditions, corev1.PodCondition{Type: "example.com/lb", Status: corev1.ConditionTrue})
	if _, err := f.client.CoreV1().Pods("ns").UpdateStatus(context.Background(), cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.sync("gated", func(p *corev1.Pod) bool {
		return p != nil && cond(p.Status, "example.com/lb").Status == corev1.ConditionTrue
	})
	f.sync("gated", ready(corev1.ConditionTrue))
}
