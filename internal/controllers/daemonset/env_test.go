package daemonset

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kapi-dev/kapi/internal/controllers/controllertest"
	"github.com/kapi-dev/kapi/internal/controllers/podcontrol"
)

// env drives the controller over a fake clientset; refresh copies what
// the fake server holds into the informer caches (and tells the
// expectations, as the Pod informer's handlers would).
type env struct {
	t       testing.TB
	ctx     context.Context
	client  *fake.Clientset
	factory informers.SharedInformerFactory
	c       *Controller
	clock   *clocktesting.FakeClock
	events  *events.FakeRecorder
}

func newEnv(t testing.TB, objs ...runtime.Object) *env {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC))
	client := controllertest.NewClientset(controllertest.ServerDefaults{Clock: clk, PendingPods: true}, objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	rec := events.NewFakeRecorder(1000)
	apps, core := f.Apps().V1(), f.Core().V1()
	c, err := New(client, apps.DaemonSets(), core.Pods(), core.Nodes(), apps.ControllerRevisions(), rec, clk, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, ctx: context.Background(), client: client, factory: f, c: c, clock: clk, events: rec}
}

func (e *env) refresh() {
	e.t.Helper()
	ctx := e.ctx
	sets, _ := e.client.AppsV1().DaemonSets("").List(ctx, metav1.ListOptions{})
	pods, _ := e.client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	nodes, _ := e.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	revs, _ := e.client.AppsV1().ControllerRevisions("").List(ctx, metav1.ListOptions{})
	controllertest.Replace(e.t, e.factory.Apps().V1().DaemonSets().Informer(), sets.Items)
	controllertest.Replace(e.t, e.factory.Core().V1().Pods().Informer(), pods.Items)
	controllertest.Replace(e.t, e.factory.Core().V1().Nodes().Informer(), nodes.Items)
	controllertest.Replace(e.t, e.factory.Apps().V1().ControllerRevisions().Informer(), revs.Items)
	// The cache has caught up with everything the controller did.
	e.c.expectations = podcontrol.NewExpectations(e.clock)
}

func (e *env) sync() {
	e.t.Helper()
	e.refresh()
	if err := e.c.Sync(e.ctx, "ns/ds"); err != nil {
		e.t.Fatalf("sync: %v", err)
	}
	e.refresh()
}

func (e *env) pods() []corev1.Pod {
	l, _ := e.client.CoreV1().Pods("ns").List(e.ctx, metav1.ListOptions{})
	return l.Items
}

// podNodes maps target node to the Pods aimed at it.
func (e *env) podNodes() map[string][]corev1.Pod {
	out := map[string][]corev1.Pod{}
	for _, p := range e.pods() {
		out[targetNode(&p)] = append(out[targetNode(&p)], p)
	}
	return out
}

func (e *env) markAllReady() {
	e.t.Helper()
	for _, p := range e.pods() {
		if p.Status.Phase == corev1.PodRunning {
			continue
		}
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(e.clock.Now())}}
		if _, err := e.client.CoreV1().Pods("ns").UpdateStatus(e.ctx, &p, metav1.UpdateOptions{}); err != nil {
			e.t.Fatal(err)
		}
	}
}

func (e *env) ds() *appsv1.DaemonSet {
	e.t.Helper()
	d, err := e.client.AppsV1().DaemonSets("ns").Get(e.ctx, "ds", metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

func (e *env) updateDS(mutate func(*appsv1.DaemonSet)) {
	e.t.Helper()
	d := e.ds()
	mutate(d)
	d.Generation++
	d.Annotations[TemplateGenerationAnnotation] = "2"
	if _, err := e.client.AppsV1().DaemonSets("ns").Update(e.ctx, d, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func node(name string, lbls map[string]string, taints ...corev1.Taint) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls}, Spec: corev1.NodeSpec{Taints: taints}}
}
