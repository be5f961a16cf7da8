package replicaset

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

var now = time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC)

var webLabels = map[string]string{"app": "web"}

func newRS(replicas int32, minReady int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "rs-uid", Generation: 2},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(replicas), MinReadySeconds: minReady,
			Selector: &metav1.LabelSelector{MatchLabels: webLabels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: webLabels}},
		},
	}
}

type podOpt func(*corev1.Pod)

func ready(since time.Duration) podOpt {
	return func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodRunning
		p.Spec.NodeName = "node"
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-since))}}
	}
}
func orphan(p *corev1.Pod)      { p.OwnerReferences = nil }
func relabeled(p *corev1.Pod)   { p.Labels = map[string]string{"app": "other"} }
func terminating(p *corev1.Pod) { p.DeletionTimestamp = ptr.To(metav1.NewTime(now)) }

func newPod(name string, age time.Duration, opts ...podOpt) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: "ns", UID: types.UID(name), Labels: webLabels, ResourceVersion: "1",
		CreationTimestamp: metav1.NewTime(now.Add(-age)),
		OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "rs-uid", Controller: ptr.To(true)}},
	}, Status: corev1.PodStatus{Phase: corev1.PodPending}}
	for _, o := range opts {
		o(p)
	}
	return p
}

type fixture struct {
	c        *Controller
	client   *fake.Clientset
	recorder *events.FakeRecorder
}

// newFixture fills the informers' stores directly: no goroutines, the
// cache is exactly what the test says.
func newFixture(t *testing.T, rs *appsv1.ReplicaSet, pods []*corev1.Pod, createErr error) *fixture {
	t.Helper()
	objs := []runtime.Object{rs}
	for _, p := range pods {
		objs = append(objs, p)
	}
	client := fake.NewClientset(objs...)
	var n atomic.Int32
	client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if createErr != nil {
			return true, nil, createErr
		}
		p := a.(clienttesting.CreateAction).GetObject().(*corev1.Pod).DeepCopy()
		p.Name = fmt.Sprintf("%s%d", p.GenerateName, n.Add(1))
		return true, p, nil
	})
	factory := informers.NewSharedInformerFactory(client, 0)
	rsInf, podInf := factory.Apps().V1().ReplicaSets(), factory.Core().V1().Pods()
	_ = rsInf.Informer().GetIndexer().Add(rs)
	for _, p := range pods {
		_ = podInf.Informer().GetIndexer().Add(p)
	}
	rec := events.NewFakeRecorder(100)
	c, err := NewReplicaSet(client, rsInf, podInf, rec, clocktesting.NewFakeClock(now), nil)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{c: c, client: client, recorder: rec}
}

// verbs are the writes the controller made, "verb resource[/name]".
func (f *fixture) verbs() []string {
	var out []string
	for _, a := range f.client.Actions() {
		if a.GetVerb() == "get" || a.GetVerb() == "list" || a.GetVerb() == "watch" {
			continue
		}
		s := a.GetVerb() + " " + a.GetResource().Resource
		if a.GetSubresource() != "" {
			s += "/" + a.GetSubresource()
		}
		switch a := a.(type) {
		case clienttesting.DeleteAction:
			s += " " + a.GetName()
		case clienttesting.PatchAction:
			s += " " + a.GetName()
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func (f *fixture) events() []string {
	var out []string
	for {
		select {
		case e := <-f.recorder.Events:
			out = append(out, e)
		default:
			sort.Strings(out)
			return out
		}
	}
}

func (f *fixture) status(t *testing.T) appsv1.ReplicaSetStatus {
	rs, err := f.client.AppsV1().ReplicaSets("ns").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rs.Status
}

// TestManageReplicas pins creates, deletes (least established first),
// adoption and release, and the events upstream records.
func TestManageReplicas(t *testing.T) {
	tests := []struct {
		name       string
		rs         *appsv1.ReplicaSet
		pods       []*corev1.Pod
		wantVerbs  []string
		wantEvents []string
	}{
		{
			name:       "scale up from zero",
			rs:         newRS(2, 0),
			wantVerbs:  []string{"create pods", "create pods", "update replicasets/status"},
			wantEvents: []string{"Normal SuccessfulCreate Created pod: web-1", "Normal SuccessfulCreate Created pod: web-2"},
		},
		{
			name:       "scale down deletes unscheduled, then pending, before ready",
			rs:         newRS(1, 0),
			pods:       []*corev1.Pod{newPod("old-ready", time.Hour, ready(time.Hour)), newPod("pending", time.Hour), newPod("new-ready", time.Minute, ready(time.Minute))},
			wantVerbs:  []string{"delete pods new-ready", "delete pods pending", "update replicasets/status"},
			wantEvents: []string{"Normal SuccessfulDelete Deleted pod: new-ready", "Normal SuccessfulDelete Deleted pod: pending"},
		},
		{
			name:      "adopts an orphan, releases a relabeled pod",
			rs:        newRS(1, 0),
			pods:      []*corev1.Pod{newPod("stray", time.Hour, orphan), newPod("relabeled", time.Hour, relabeled)},
			wantVerbs: []string{"patch pods relabeled", "patch pods stray", "update replicasets/status"},
		},
		{
			name:      "steady state writes nothing but status",
			rs:        newRS(1, 0),
			pods:      []*corev1.Pod{newPod("a", time.Hour)},
			wantVerbs: []string{"update replicasets/status"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.rs, tt.pods, nil)
			if err := f.c.sync(context.Background(), "ns/web"); err != nil {
				t.Fatal(err)
			}
			if got := f.verbs(); strings.Join(got, ",") != strings.Join(tt.wantVerbs, ",") {
				t.Errorf("writes %q, want %q", got, tt.wantVerbs)
			}
			if got := f.events(); strings.Join(got, ",") != strings.Join(tt.wantEvents, ",") {
				t.Errorf("events %q, want %q", got, tt.wantEvents)
			}
		})
	}
}

// TestExpectationsHoldSecondSync: until the informer sees the creates,
// a second sync creates nothing more.
func TestExpectationsHoldSecondSync(t *testing.T) {
	f := newFixture(t, newRS(3, 0), nil, nil)
	for range 2 {
		if err := f.c.sync(context.Background(), "ns/web"); err != nil {
			t.Fatal(err)
		}
	}
	creates := 0
	for _, v := range f.verbs() {
		if v == "create pods" {
			creates++
		}
	}
	if creates != 3 {
		t.Errorf("%d creates, want 3", creates)
	}
	f.c.addPod(newPod("web-1", 0))
	if adds, _, _ := f.c.expectations.Pending("ns/web"); adds != 2 {
		t.Errorf("pending creates %d, want 2", adds)
	}
}

// TestFailedCreate: a refused create stops the slow start after one
// call and sets ReplicaFailure/FailedCreate with the error.
func TestFailedCreate(t *testing.T) {
	f := newFixture(t, newRS(5, 0), nil, errors.New("exceeded quota"))
	if err := f.c.sync(context.Background(), "ns/web"); err == nil {
		t.Fatal("sync must fail")
	}
	st := f.status(t)
	if len(st.Conditions) != 1 || st.Conditions[0].Type != appsv1.ReplicaSetReplicaFailure || st.Conditions[0].Reason != "FailedCreate" || st.Conditions[0].Message != "exceeded quota" {
		t.Errorf("conditions = %+v", st.Conditions)
	}
	if got := f.events(); len(got) != 1 || got[0] != "Warning FailedCreate Error creating: exceeded quota" {
		t.Errorf("events %q", got)
	}
	if adds, _, _ := f.c.expectations.Pending("ns/web"); adds != 0 {
		t.Errorf("skipped creates must not be expected; %d are", adds)
	}
}

// TestStatus pins the counts: ready, available only after minReadySeconds,
// fullyLabeled, terminatingReplicas, observedGeneration.
func TestStatus(t *testing.T) {
	pods := []*corev1.Pod{
		newPod("a", time.Hour, ready(time.Hour)), newPod("b", time.Hour, ready(time.Second)),
		newPod("c", time.Hour), newPod("d", time.Hour, terminating),
	}
	f := newFixture(t, newRS(3, 10), pods, nil)
	if err := f.c.sync(context.Background(), "ns/web"); err != nil {
		t.Fatal(err)
	}
	st := f.status(t)
	want := appsv1.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 1, ObservedGeneration: 2, TerminatingReplicas: ptr.To[int32](1)}
	if !equality.Semantic.DeepEqual(st, want) {
		t.Errorf("status %+v, want %+v", st, want)
	}
}

// TestReplicationController: RCs run the same code and own their Pods
// as v1 ReplicationControllers.
func TestReplicationController(t *testing.T) {
	rc := &corev1.ReplicationController{
		ObjectMeta: metav1.ObjectMeta{Name: "rc", Namespace: "ns", UID: "rc-uid", Generation: 1},
		Spec: corev1.ReplicationControllerSpec{Replicas: ptr.To[int32](1), Selector: webLabels,
			Template: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: webLabels}}},
	}
	client := fake.NewClientset(rc)
	factory := informers.NewSharedInformerFactory(client, 0)
	rcInf, podInf := factory.Core().V1().ReplicationControllers(), factory.Core().V1().Pods()
	_ = rcInf.Informer().GetIndexer().Add(rc)
	c, err := NewReplicationController(client, rcInf, podInf, events.NewFakeRecorder(10), clocktesting.NewFakeClock(now), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.sync(context.Background(), "ns/rc"); err != nil {
		t.Fatal(err)
	}
	pods, _ := client.CoreV1().Pods("ns").List(context.Background(), metav1.ListOptions{})
	if len(pods.Items) != 1 {
		t.Fatalf("%d pods, want 1", len(pods.Items))
	}
	ref := pods.Items[0].OwnerReferences[0]
	if ref.Kind != "ReplicationController" || ref.APIVersion != "v1" || ref.UID != "rc-uid" || pods.Items[0].GenerateName != "rc-" {
		t.Errorf("pod %+v", pods.Items[0].ObjectMeta)
	}
	got, _ := client.CoreV1().ReplicationControllers("ns").Get(context.Background(), "rc", metav1.GetOptions{})
	if got.Status.ObservedGeneration != 1 {
		t.Errorf("status %+v", got.Status)
	}
}
