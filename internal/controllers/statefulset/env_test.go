package statefulset

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
)

// env drives the controller over a fake clientset whose objects are
// copied into the informer caches before and after every sync, so each
// sync sees what the previous one wrote, as a caught-up cache would.
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
	// The apiserver gives new Pods phase Pending and every object a UID.
	client := controllertest.NewClientset(controllertest.ServerDefaults{PendingPods: true}, objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	rec := events.NewFakeRecorder(1000)
	apps, core := f.Apps().V1(), f.Core().V1()
	c, err := New(client, apps.StatefulSets(), core.Pods(), core.PersistentVolumeClaims(), apps.ControllerRevisions(), rec, clk, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, ctx: context.Background(), client: client, factory: f, c: c, clock: clk, events: rec}
}

// refresh replaces the caches with what the fake server holds.
func (e *env) refresh() {
	e.t.Helper()
	ctx := e.ctx
	sets, _ := e.client.AppsV1().StatefulSets("").List(ctx, metav1.ListOptions{})
	pods, _ := e.client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	claims, _ := e.client.CoreV1().PersistentVolumeClaims("").List(ctx, metav1.ListOptions{})
	revs, _ := e.client.AppsV1().ControllerRevisions("").List(ctx, metav1.ListOptions{})
	controllertest.Replace(e.t, e.factory.Apps().V1().StatefulSets().Informer(), sets.Items)
	controllertest.Replace(e.t, e.factory.Core().V1().Pods().Informer(), pods.Items)
	controllertest.Replace(e.t, e.factory.Core().V1().PersistentVolumeClaims().Informer(), claims.Items)
	controllertest.Replace(e.t, e.factory.Apps().V1().ControllerRevisions().Informer(), revs.Items)
}

func (e *env) sync(ns, name string) {
	e.t.Helper()
	e.refresh()
	if err := e.c.Sync(e.ctx, ns+"/"+name); err != nil {
		e.t.Fatalf("sync %s/%s: %v", ns, name, err)
	}
	e.refresh()
}

func (e *env) podNames(ns string) []string {
	pods, _ := e.client.CoreV1().Pods(ns).List(e.ctx, metav1.ListOptions{})
	var out []string
	for _, p := range pods.Items {
		out = append(out, p.Name)
	}
	return out
}

func (e *env) pod(ns, name string) *corev1.Pod {
	e.t.Helper()
	p, err := e.client.CoreV1().Pods(ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// markReady makes a Pod Running and Ready now, as a kubelet would.
func (e *env) markReady(ns, name string) {
	e.t.Helper()
	p := e.pod(ns, name)
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue,
		LastTransitionTime: metav1.NewTime(e.clock.Now())}}
	if _, err := e.client.CoreV1().Pods(ns).UpdateStatus(e.ctx, p, metav1.UpdateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) set(ns, name string) *appsv1.StatefulSet {
	e.t.Helper()
	s, err := e.client.AppsV1().StatefulSets(ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func (e *env) revisions(ns string) []appsv1.ControllerRevision {
	l, _ := e.client.AppsV1().ControllerRevisions(ns).List(e.ctx, metav1.ListOptions{})
	return l.Items
}
