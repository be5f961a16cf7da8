package disruption

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

var now = time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)

type env struct {
	t      *testing.T
	client *fake.Clientset
	f      informers.SharedInformerFactory
	c      *Controller
	clock  *clocktesting.FakeClock
	events *events.FakeRecorder
}

func newEnv(t *testing.T, scale ScaleFinder, objs ...runtime.Object) *env {
	client := fake.NewClientset(objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	clk := clocktesting.NewFakeClock(now)
	rec := events.NewFakeRecorder(100)
	c, err := New(client, Informers{
		Pods: f.Core().V1().Pods(), PDBs: f.Policy().V1().PodDisruptionBudgets(),
		ReplicationControllers: f.Core().V1().ReplicationControllers(), ReplicaSets: f.Apps().V1().ReplicaSets(),
		Deployments: f.Apps().V1().Deployments(), StatefulSets: f.Apps().V1().StatefulSets(),
	}, scale, rec, clk, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, client: client, f: f, c: c, clock: clk, events: rec}
	for _, o := range objs {
		e.store(o)
	}
	return e
}

// store puts obj into its informer's cache.
func (e *env) store(o runtime.Object) {
	e.t.Helper()
	var err error
	switch v := o.(type) {
	case *corev1.Pod:
		err = e.f.Core().V1().Pods().Informer().GetIndexer().Update(v)
	case *policyv1.PodDisruptionBudget:
		err = e.f.Policy().V1().PodDisruptionBudgets().Informer().GetIndexer().Update(v)
	case *corev1.ReplicationController:
		err = e.f.Core().V1().ReplicationControllers().Informer().GetIndexer().Update(v)
	case *appsv1.ReplicaSet:
		err = e.f.Apps().V1().ReplicaSets().Informer().GetIndexer().Update(v)
	case *appsv1.Deployment:
		err = e.f.Apps().V1().Deployments().Informer().GetIndexer().Update(v)
	case *appsv1.StatefulSet:
		err = e.f.Apps().V1().StatefulSets().Informer().GetIndexer().Update(v)
	}
	if err != nil {
		e.t.Fatal(err)
	}
}

// sync syncs the budget and returns its stored status.
func (e *env) sync(name string) policyv1.PodDisruptionBudgetStatus {
	e.t.Helper()
	ctx := context.Background()
	if err := e.c.Sync(ctx, "ns/"+name); err != nil {
		e.t.Fatal(err)
	}
	pdb, err := e.client.PolicyV1().PodDisruptionBudgets("ns").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.store(pdb)
	return pdb.Status
}

func pod(name string, ready bool, owner *metav1.OwnerReference) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{"app": "a"}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	if ready {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	}
	if owner != nil {
		p.OwnerReferences = []metav1.OwnerReference{*owner}
	}
	return p
}

func pdb(minAvailable, maxUnavailable *intstr.IntOrString) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns", Generation: 1},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: minAvailable, MaxUnavailable: maxUnavailable,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}},
	}
}

func ctrlRef(apiVersion, kind, name, uid string) *metav1.OwnerReference {
	return &metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID(uid), Controller: ptr.To(true)}
}

func checkCondition(t *testing.T, s policyv1.PodDisruptionBudgetStatus, status metav1.ConditionStatus, reason string) {
	t.Helper()
	c := apimeta.FindStatusCondition(s.Conditions, policyv1.DisruptionAllowedCondition)
	if c == nil || c.Status != status || c.Reason != reason || c.ObservedGeneration != s.ObservedGeneration {
		t.Errorf("DisruptionAllowed = %+v, want %s/%s", c, status, reason)
	}
}

// TestIntegerMinAvailableFollowsReadiness: an integer minAvailable counts
// the selected Pods; disruptions follow readiness and the condition
// flips between InsufficientPods and SufficientPods.
func TestIntegerMinAvailableFollowsReadiness(t *testing.T) {
	p3 := pod("p3", false, nil)
	e := newEnv(t, nil, pdb(ptr.To(intstr.FromInt32(2)), nil), pod("p1", true, nil), pod("p2", true, nil), p3)
	s := e.sync("b")
	if s.CurrentHealthy != 2 || s.DesiredHealthy != 2 || s.ExpectedPods != 3 || s.DisruptionsAllowed != 0 || s.ObservedGeneration != 1 {
		t.Fatalf("status = %+v", s)
	}
	checkCondition(t, s, metav1.ConditionFalse, policyv1.InsufficientPodsReason)
	e.store(pod("p3", true, nil))
	s = e.sync("b")
	if s.CurrentHealthy != 3 || s.DisruptionsAllowed != 1 {
		t.Fatalf("status = %+v", s)
	}
	checkCondition(t, s, metav1.ConditionTrue, policyv1.SufficientPodsReason)
}

// TestScaleOfControllers: percentages and maxUnavailable count the
// scale of the Pods' controllers: a Deployment through its ReplicaSet, a
// bare ReplicaSet, a ReplicationController, a StatefulSet and a custom
// resource's scale subresource, each once.
func TestScaleOfControllers(t *testing.T) {
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns", UID: "dep"}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](4)}}
	rsOfDep := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "d-1", Namespace: "ns", UID: "rs1",
		OwnerReferences: []metav1.OwnerReference{*ctrlRef("apps/v1", "Deployment", "d", "dep")}}, Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](2)}}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns", UID: "rs2"}, Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](3)}}
	rc := &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Name: "rc", Namespace: "ns", UID: "rc"}, Spec: corev1.ReplicationControllerSpec{Replicas: ptr.To[int32](1)}}
	ss := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "ss"}, Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](5)}}
	scale := func(_ context.Context, ref *metav1.OwnerReference, _ string) (string, int32, bool, error) {
		if ref.Kind == "Widget" && ref.UID == "w" {
			return "w", 6, true, nil
		}
		return "", 0, false, nil
	}
	objs := []runtime.Object{pdb(nil, ptr.To(intstr.FromString("10%"))), dep, rsOfDep, rs, rc, ss,
		pod("a1", true, ctrlRef("apps/v1", "ReplicaSet", "d-1", "rs1")), pod("a2", true, ctrlRef("apps/v1", "ReplicaSet", "d-1", "rs1")),
		pod("b", true, ctrlRef("apps/v1", "ReplicaSet", "r", "rs2")), pod("c", true, ctrlRef("v1", "ReplicationController", "rc", "rc")),
		pod("d", true, ctrlRef("apps/v1", "StatefulSet", "s", "ss")), pod("e", true, ctrlRef("example.com/v1", "Widget", "w", "w"))}
	e := newEnv(t, scale, objs...)
	s := e.sync("b")
	// 4 + 3 + 1 + 5 + 6 = 19 expected; 10% rounds up to 2 unavailable.
	if s.ExpectedPods != 19 || s.DesiredHealthy != 17 || s.CurrentHealthy != 6 || s.DisruptionsAllowed != 0 {
		t.Fatalf("status = %+v", s)
	}
	e2 := newEnv(t, scale, append([]runtime.Object{pdb(ptr.To(intstr.FromString("50%")), nil)}, objs[1:]...)...)
	if s := e2.sync("b"); s.ExpectedPods != 19 || s.DesiredHealthy != 10 {
		t.Fatalf("50%% minAvailable status = %+v", s)
	}
}

// TestSyncFailures: a Pod whose controller exists nowhere fails the sync
// safe (SyncFailed, no disruption); Pods without any controller are
// left out of the scale with an UnmanagedPods warning.
func TestSyncFailures(t *testing.T) {
	e := newEnv(t, nil, pdb(nil, ptr.To(intstr.FromInt32(1))), pod("p", true, ctrlRef("apps/v1", "ReplicaSet", "gone", "x")))
	s := e.sync("b")
	c := apimeta.FindStatusCondition(s.Conditions, policyv1.DisruptionAllowedCondition)
	if s.DisruptionsAllowed != 0 || c == nil || c.Reason != policyv1.SyncFailedReason || c.Message != `found no controllers for pod "p"` {
		t.Fatalf("status = %+v", s)
	}

	e = newEnv(t, nil, pdb(nil, ptr.To(intstr.FromInt32(1))), pod("p", true, nil))
	s = e.sync("b")
	if s.ExpectedPods != 0 || s.DisruptionsAllowed != 0 {
		t.Fatalf("status = %+v", s)
	}
	if ev := drain(e.events); !strings.Contains(ev, "UnmanagedPods") {
		t.Errorf("events = %q", ev)
	}
}

func drain(r *events.FakeRecorder) string {
	var out []string
	for {
		select {
		case s := <-r.Events:
			out = append(out, s)
		default:
			return strings.Join(out, "\n")
		}
	}
}

// TestDisruptedPodsExpire: an evicted Pod recorded in disruptedPods is
// not counted healthy until DeletionTimeout passes, then the entry is
// dropped; entries for Pods that are gone are dropped at once.
func TestDisruptedPodsExpire(t *testing.T) {
	b := pdb(ptr.To(intstr.FromInt32(1)), nil)
	b.Status.DisruptedPods = map[string]metav1.Time{"p1": metav1.NewTime(now.Add(-time.Minute)), "gone": metav1.NewTime(now)}
	e := newEnv(t, nil, b, pod("p1", true, nil), pod("p2", true, nil))
	s := e.sync("b")
	if _, ok := s.DisruptedPods["p1"]; !ok || len(s.DisruptedPods) != 1 || s.CurrentHealthy != 1 || s.DisruptionsAllowed != 0 {
		t.Fatalf("status = %+v", s)
	}
	e.clock.Step(90 * time.Second)
	s = e.sync("b")
	if len(s.DisruptedPods) != 0 || s.CurrentHealthy != 2 || s.DisruptionsAllowed != 1 {
		t.Fatalf("status after the timeout = %+v", s)
	}
}

// TestStaleDisruptionTargetReset: a DisruptionTarget=True condition on a
// Pod not terminating is set False once StalePodDisruptionTimeout passed.
func TestStaleDisruptionTargetReset(t *testing.T) {
	p := pod("p", true, nil)
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
		Reason: "EvictionByEvictionAPI", LastTransitionTime: metav1.NewTime(now)})
	e := newEnv(t, nil, p)
	ctx := context.Background()
	if err := e.c.SyncStalePod(ctx, "ns/p"); err != nil {
		t.Fatal(err)
	}
	got, _ := e.client.CoreV1().Pods("ns").Get(ctx, "p", metav1.GetOptions{})
	if got.Status.Conditions[1].Status != corev1.ConditionTrue {
		t.Fatal("reset before the timeout")
	}
	e.clock.Step(StalePodDisruptionTimeout + time.Second)
	if err := e.c.SyncStalePod(ctx, "ns/p"); err != nil {
		t.Fatal(err)
	}
	got, _ = e.client.CoreV1().Pods("ns").Get(ctx, "p", metav1.GetOptions{})
	if got.Status.Conditions[1].Status != corev1.ConditionFalse {
		t.Fatalf("conditions = %+v", got.Status.Conditions)
	}
}
