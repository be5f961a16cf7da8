package podgc

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"
)

var now = time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)

type podOpt func(*corev1.Pod)

func pod(name string, phase corev1.PodPhase, opts ...podOpt) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
		Status:     corev1.PodStatus{Phase: phase},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func age(d time.Duration) podOpt {
	return func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(now.Add(-d)) }
}
func onNode(n string) podOpt { return func(p *corev1.Pod) { p.Spec.NodeName = n } }
func terminating() podOpt {
	return func(p *corev1.Pod) { t := metav1.NewTime(now); p.DeletionTimestamp = &t }
}
func evicted() podOpt { return func(p *corev1.Pod) { p.Status.Reason = "Evicted" } }

func node(name string, ready bool, taints ...string) *corev1.Node {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}}}
	for _, k := range taints {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: k, Effect: corev1.TaintEffectNoExecute})
	}
	return n
}

// fixture is a collector over a fake client whose informers hold cached
// (what the controller sees) while the API holds api.
type fixture struct {
	c      *Controller
	client *fake.Clientset
	clock  *testingclock.FakeClock
}

func newFixture(t *testing.T, threshold int, cached, api []runtime.Object) *fixture {
	t.Helper()
	client := fake.NewClientset(append(slices.Clone(cached), api...)...)
	f := informers.NewSharedInformerFactory(client, 0)
	clk := testingclock.NewFakeClock(now)
	c := New(client, f.Core().V1().Pods(), f.Core().V1().Nodes(), threshold, clk, slog.New(slog.DiscardHandler))
	for _, o := range cached {
		switch o := o.(type) {
		case *corev1.Pod:
			_ = f.Core().V1().Pods().Informer().GetIndexer().Add(o)
		case *corev1.Node:
			_ = f.Core().V1().Nodes().Informer().GetIndexer().Add(o)
		}
	}
	return &fixture{c: c, client: client, clock: clk}
}

// deleted lists the Pods deleted since the last call, sorted.
func (f *fixture) deleted(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, a := range f.client.Actions() {
		if d, ok := a.(k8stesting.DeleteAction); ok && a.GetResource().Resource == "pods" {
			names = append(names, d.GetName())
			if gp := a.(interface{ GetDeleteOptions() metav1.DeleteOptions }).GetDeleteOptions().GracePeriodSeconds; gp == nil || *gp != 0 {
				t.Errorf("pod %s deleted with grace period %v, want 0", d.GetName(), gp)
			}
		}
	}
	f.client.ClearActions()
	slices.Sort(names)
	return names
}

// TestGC pins what each pass deletes: terminated Pods over the threshold
// (evicted first, then oldest), never Pending or Running ones; terminating
// unscheduled Pods; terminating Pods on NotReady out-of-service Nodes.
func TestGC(t *testing.T) {
	oos := corev1.TaintNodeOutOfService
	tests := []struct {
		name      string
		threshold int
		cached    []runtime.Object
		want      []string
	}{
		{"under the threshold", 3, []runtime.Object{pod("a", corev1.PodSucceeded), pod("b", corev1.PodFailed)}, nil},
		{"over the threshold: evicted, then oldest", 2, []runtime.Object{
			pod("old", corev1.PodSucceeded, age(3*time.Hour)),
			pod("mid", corev1.PodFailed, age(2*time.Hour)),
			pod("new-evicted", corev1.PodFailed, evicted(), age(time.Minute)),
			pod("new", corev1.PodSucceeded, age(time.Minute)),
			pod("running", corev1.PodRunning, age(5*time.Hour)),
			pod("pending", corev1.PodPending, age(5*time.Hour)),
		}, []string{"new-evicted", "old"}},
		{"threshold off", 0, []runtime.Object{pod("a", corev1.PodSucceeded), pod("b", corev1.PodFailed)}, nil},
		{"unscheduled terminating", 0, []runtime.Object{pod("t", corev1.PodPending, terminating()), pod("p", corev1.PodPending)}, []string{"t"}},
		{"out of service", 0, []runtime.Object{
			node("down", false, oos), node("ready", true, oos), node("untainted", false),
			pod("on-down", corev1.PodRunning, onNode("down"), terminating()),
			pod("on-down-alive", corev1.PodRunning, onNode("down")),
			pod("on-ready", corev1.PodRunning, onNode("ready"), terminating()),
			pod("on-untainted", corev1.PodRunning, onNode("untainted"), terminating()),
		}, []string{"on-down"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.threshold, tt.cached, nil)
			f.c.GC(context.Background())
			if got := f.deleted(t); !slices.Equal(got, tt.want) {
				t.Errorf("deleted %v, want %v", got, tt.want)
			}
		})
	}
}

// TestOrphansAfterQuarantine: a Pod on a Node the informer does not know
// is deleted only after the quarantine and only if a GET confirms the
// Node is gone; a running one is first marked Failed with upstream's
// DisruptionTarget condition.
func TestOrphansAfterQuarantine(t *testing.T) {
	f := newFixture(t, 0,
		[]runtime.Object{node("here", true),
			pod("orphan", corev1.PodRunning, onNode("gone")),
			pod("on-late", corev1.PodRunning, onNode("late")),
			pod("fine", corev1.PodRunning, onNode("here"))},
		// "late" exists but the informer has not seen it yet.
		[]runtime.Object{node("late", true)})
	ctx := context.Background()
	f.c.GC(ctx)
	if got := f.deleted(t); len(got) != 0 {
		t.Fatalf("deleted %v during the quarantine", got)
	}
	f.clock.Step(QuarantineTime - time.Second)
	f.c.GC(ctx)
	if got := f.deleted(t); len(got) != 0 {
		t.Fatalf("deleted %v during the quarantine", got)
	}
	f.clock.Step(time.Second)
	f.c.GC(ctx)
	var patch []byte
	for _, a := range f.client.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok && a.GetSubresource() == "status" {
			if p.GetName() != "orphan" || p.GetPatchType() != types.StrategicMergePatchType {
				t.Errorf("unexpected status patch of %s (%s)", p.GetName(), p.GetPatchType())
			}
			patch = p.GetPatch()
		}
	}
	if got := f.deleted(t); !slices.Equal(got, []string{"orphan"}) {
		t.Fatalf("deleted %v, want [orphan]", got)
	}
	var sent struct {
		Metadata struct{ UID string }
		Status   corev1.PodStatus
	}
	if err := json.Unmarshal(patch, &sent); err != nil {
		t.Fatalf("status patch %s: %v", patch, err)
	}
	if sent.Metadata.UID != "uid-orphan" || sent.Status.Phase != corev1.PodFailed || len(sent.Status.Conditions) != 1 {
		t.Fatalf("status patch %s", patch)
	}
	c := sent.Status.Conditions[0]
	if c.Type != corev1.DisruptionTarget || c.Status != corev1.ConditionTrue || c.Reason != "DeletionByPodGC" ||
		c.Message != "PodGC: node no longer exists" || !c.LastTransitionTime.Time.Equal(f.clock.Now()) {
		t.Errorf("condition %+v", c)
	}
}

// TestTerminalPodIsNotPatched: a Pod already Succeeded or Failed is
// deleted without a status write.
func TestTerminalPodIsNotPatched(t *testing.T) {
	f := newFixture(t, 1, []runtime.Object{pod("a", corev1.PodSucceeded, age(2*time.Hour)), pod("b", corev1.PodFailed)}, nil)
	f.c.GC(context.Background())
	for _, a := range f.client.Actions() {
		if a.GetVerb() == "patch" {
			t.Errorf("unexpected %s %s", a.GetVerb(), a.GetSubresource())
		}
	}
	if got := f.deleted(t); !slices.Equal(got, []string{"a"}) {
		t.Errorf("deleted %v, want [a]", got)
	}
}
