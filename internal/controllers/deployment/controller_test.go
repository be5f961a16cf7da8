package deployment

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

var start = time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC)

var webLabels = map[string]string{"app": "web"}

func newDeployment(replicas int32, image string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "d-uid", Generation: 1},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: webLabels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: webLabels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image}}},
			},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxSurge: ptr.To(intstr.FromString("25%")), MaxUnavailable: ptr.To(intstr.FromString("25%"))}},
			RevisionHistoryLimit:    ptr.To[int32](10),
			ProgressDeadlineSeconds: ptr.To[int32](600),
		},
	}
}

type fixture struct {
	t        *testing.T
	c        *Controller
	client   *fake.Clientset
	factory  informers.SharedInformerFactory
	clock    *clocktesting.FakeClock
	recorder *events.FakeRecorder
}

func newFixture(t *testing.T, objs ...runtime.Object) *fixture {
	client := fake.NewClientset(objs...)
	// The API server gives every object a UID; the fake does not.
	client.PrependReactor("create", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if m, err := meta.Accessor(a.(clienttesting.CreateAction).GetObject()); err == nil && m.GetUID() == "" {
			m.SetUID(types.UID(m.GetName() + "-uid"))
		}
		return false, nil, nil
	})
	factory := informers.NewSharedInformerFactory(client, 0)
	f := &fixture{t: t, client: client, factory: factory, clock: clocktesting.NewFakeClock(start), recorder: events.NewFakeRecorder(100)}
	c, err := New(client, factory.Apps().V1().Deployments(), factory.Apps().V1().ReplicaSets(), factory.Core().V1().Pods(), f.recorder, f.clock, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.c = c
	return f
}

// refresh copies what the fake API holds into the informers' stores, as
// a watch would: the next sync sees the previous one's writes.
func (f *fixture) refresh() {
	ctx := context.Background()
	ds, _ := f.client.AppsV1().Deployments("ns").List(ctx, metav1.ListOptions{})
	rss, _ := f.client.AppsV1().ReplicaSets("ns").List(ctx, metav1.ListOptions{})
	set := func(inf cache.SharedIndexInformer, items []any) {
		_ = inf.GetIndexer().Replace(items, "")
	}
	var d, r []any
	for i := range ds.Items {
		d = append(d, &ds.Items[i])
	}
	for i := range rss.Items {
		r = append(r, &rss.Items[i])
	}
	set(f.factory.Apps().V1().Deployments().Informer(), d)
	set(f.factory.Apps().V1().ReplicaSets().Informer(), r)
}

func (f *fixture) sync() {
	f.t.Helper()
	f.refresh()
	if err := f.c.sync(context.Background(), "ns/web"); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) deployment() *appsv1.Deployment {
	d, err := f.client.AppsV1().Deployments("ns").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return d
}

// replicaSets are "name=replicas" in creation order.
func (f *fixture) replicaSets() []*appsv1.ReplicaSet {
	list, _ := f.client.AppsV1().ReplicaSets("ns").List(context.Background(), metav1.ListOptions{})
	var out []*appsv1.ReplicaSet
	for i := range list.Items {
		out = append(out, &list.Items[i])
	}
	sort.Slice(out, func(i, j int) bool { r1, _ := revision(out[i]); r2, _ := revision(out[j]); return r1 < r2 })
	return out
}

// settle plays the replicaset controller: every ReplicaSet's Pods exist
// and, when available, are available.
func (f *fixture) settle(available bool) {
	for _, rs := range f.replicaSets() {
		rs.Status.Replicas = replicasOf(rs)
		rs.Status.ReadyReplicas, rs.Status.AvailableReplicas = 0, 0
		if available {
			rs.Status.ReadyReplicas, rs.Status.AvailableReplicas = replicasOf(rs), replicasOf(rs)
		}
		rs.Status.ObservedGeneration = rs.Generation
		rs.Status.TerminatingReplicas = ptr.To[int32](0)
		if _, err := f.client.AppsV1().ReplicaSets("ns").UpdateStatus(context.Background(), rs, metav1.UpdateOptions{}); err != nil {
			f.t.Fatal(err)
		}
	}
}

func (f *fixture) events() []string {
	var out []string
	for {
		select {
		case e := <-f.recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func condition(d *appsv1.Deployment, t appsv1.DeploymentConditionType) string {
	c := getCondition(d.Status, t)
	if c == nil {
		return ""
	}
	return string(c.Status) + "/" + c.Reason
}

// TestCreateDeployment pins the first ReplicaSet: named by the
// pod-template-hash, labelled and selected by it, revision 1 with the
// replica annotations, owned by the Deployment; the Deployment gets the
// revision and Progressing NewReplicaSetCreated, then, with every Pod
// available, NewReplicaSetAvailable and Available.
func TestCreateDeployment(t *testing.T) {
	d := newDeployment(3, "nginx:1")
	f := newFixture(t, d)
	f.sync()
	rss := f.replicaSets()
	if len(rss) != 1 {
		t.Fatalf("%d ReplicaSets, want 1", len(rss))
	}
	rs := rss[0]
	hash := ComputeHash(&d.Spec.Template, nil)
	if rs.Name != "web-"+hash || rs.Labels[PodTemplateHashLabel] != hash || rs.Spec.Selector.MatchLabels[PodTemplateHashLabel] != hash ||
		rs.Spec.Template.Labels[PodTemplateHashLabel] != hash || replicasOf(rs) != 3 {
		t.Errorf("rs %s labels %v selector %v replicas %d", rs.Name, rs.Labels, rs.Spec.Selector.MatchLabels, replicasOf(rs))
	}
	wantAnn := map[string]string{RevisionAnnotation: "1", DesiredReplicasAnnotation: "3", MaxReplicasAnnotation: "4"}
	for k, v := range wantAnn {
		if rs.Annotations[k] != v {
			t.Errorf("annotation %s = %q, want %q", k, rs.Annotations[k], v)
		}
	}
	if ref := metav1.GetControllerOf(rs); ref == nil || ref.Kind != "Deployment" || ref.UID != "d-uid" {
		t.Errorf("owner %v", rs.OwnerReferences)
	}
	got := f.deployment()
	if got.Annotations[RevisionAnnotation] != "1" || condition(got, appsv1.DeploymentProgressing) != "True/NewReplicaSetCreated" {
		t.Errorf("deployment annotations %v conditions %v", got.Annotations, got.Status.Conditions)
	}
	if ev := f.events(); len(ev) != 1 || ev[0] != "Normal ScalingReplicaSet Scaled up replica set web-"+hash+" from 0 to 3" {
		t.Errorf("events %q", ev)
	}
	f.settle(true)
	f.sync()
	got = f.deployment()
	if got.Status.Replicas != 3 || got.Status.UpdatedReplicas != 3 || got.Status.AvailableReplicas != 3 || got.Status.ObservedGeneration != 1 ||
		condition(got, appsv1.DeploymentProgressing) != "True/NewReplicaSetAvailable" || condition(got, appsv1.DeploymentAvailable) != "True/MinimumReplicasAvailable" {
		t.Errorf("status %+v", got.Status)
	}
}

// TestRollingUpdate pins the steps of a rollout of 4 replicas with 25%
// surge and unavailability (1 and 1): the new ReplicaSet is created at
// 1 (5 in all) and the old one scaled to 3 in the same sync (3 stay
// available); with every Pod available at once, each later sync grows
// the new one to the surge limit or shrinks old ones to 3 available;
// the new ReplicaSet is revision 2.
func TestRollingUpdate(t *testing.T) {
	f := newFixture(t, newDeployment(4, "nginx:1"))
	f.sync()
	f.settle(true)
	f.sync()
	d := f.deployment()
	d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	d.Generation++
	if _, err := f.client.AppsV1().Deployments("ns").Update(context.Background(), d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	var steps []string
	for range 12 {
		f.sync()
		var s []string
		for _, rs := range f.replicaSets() {
			s = append(s, rs.Annotations[RevisionAnnotation]+":"+string(rune('0'+replicasOf(rs))))
		}
		if len(steps) == 0 || steps[len(steps)-1] != strings.Join(s, " ") {
			steps = append(steps, strings.Join(s, " "))
		}
		f.settle(true)
	}
	want := "1:3 2:1|1:3 2:2|1:1 2:2|1:1 2:4|1:0 2:4"
	if got := strings.Join(steps, "|"); got != want {
		t.Errorf("rollout steps\n got %s\nwant %s", got, want)
	}
	got := f.deployment()
	if got.Annotations[RevisionAnnotation] != "2" || condition(got, appsv1.DeploymentProgressing) != "True/NewReplicaSetAvailable" || got.Status.UpdatedReplicas != 4 {
		t.Errorf("deployment %v %+v", got.Annotations, got.Status)
	}
}

// TestRecreate: old Pods go first; the new ReplicaSet appears only when
// the old one reports none.
func TestRecreate(t *testing.T) {
	d := newDeployment(2, "nginx:1")
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	f := newFixture(t, d)
	f.sync()
	f.settle(true)
	f.sync()
	d = f.deployment()
	d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	_, _ = f.client.AppsV1().Deployments("ns").Update(context.Background(), d, metav1.UpdateOptions{})
	f.sync()
	if rss := f.replicaSets(); len(rss) != 1 || replicasOf(rss[0]) != 0 {
		t.Fatalf("the old ReplicaSet must scale to 0 first; %d ReplicaSets", len(rss))
	}
	f.sync() // status still reports 2 old Pods
	if rss := f.replicaSets(); len(rss) != 1 {
		t.Fatalf("no new ReplicaSet while old Pods run; got %d", len(rss))
	}
	f.settle(true)
	f.sync()
	if rss := f.replicaSets(); len(rss) != 2 || replicasOf(rss[1]) != 2 {
		t.Fatalf("the new ReplicaSet at 2 once old Pods are gone; got %d", len(rss))
	}
}

// TestProgressDeadline: no progress for progressDeadlineSeconds turns
// Progressing False/ProgressDeadlineExceeded.
func TestProgressDeadline(t *testing.T) {
	f := newFixture(t, newDeployment(1, "nginx:1"))
	f.sync()
	f.settle(false)
	f.sync()
	if c := condition(f.deployment(), appsv1.DeploymentProgressing); c != "True/NewReplicaSetCreated" && c != "True/ReplicaSetUpdated" {
		t.Fatalf("Progressing %s", c)
	}
	f.clock.Step(601 * time.Second)
	f.sync()
	got := f.deployment()
	if condition(got, appsv1.DeploymentProgressing) != "False/ProgressDeadlineExceeded" || condition(got, appsv1.DeploymentAvailable) != "False/MinimumReplicasUnavailable" {
		t.Errorf("conditions %+v", got.Status.Conditions)
	}
	if msg := getCondition(got.Status, appsv1.DeploymentProgressing).Message; !strings.HasSuffix(msg, "has timed out progressing.") {
		t.Errorf("message %q", msg)
	}
}

// TestPauseResume: pausing sets Progressing Unknown/DeploymentPaused and
// stops the rollout; resuming sets DeploymentResumed.
func TestPauseResume(t *testing.T) {
	f := newFixture(t, newDeployment(1, "nginx:1"))
	f.sync()
	f.settle(true)
	f.sync()
	d := f.deployment()
	d.Spec.Paused = true
	d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	_, _ = f.client.AppsV1().Deployments("ns").Update(context.Background(), d, metav1.UpdateOptions{})
	f.sync()
	if c := condition(f.deployment(), appsv1.DeploymentProgressing); c != "Unknown/DeploymentPaused" {
		t.Errorf("paused: Progressing %s", c)
	}
	if n := len(f.replicaSets()); n != 1 {
		t.Errorf("a paused Deployment must not roll out; %d ReplicaSets", n)
	}
	d = f.deployment()
	d.Spec.Paused = false
	_, _ = f.client.AppsV1().Deployments("ns").Update(context.Background(), d, metav1.UpdateOptions{})
	f.refresh()
	dd, _ := f.c.dLister.Deployments("ns").Get("web")
	dd = dd.DeepCopy()
	if err := f.c.checkPausedConditions(context.Background(), dd); err != nil {
		t.Fatal(err)
	}
	if c := condition(f.deployment(), appsv1.DeploymentProgressing); c != "Unknown/DeploymentResumed" {
		t.Errorf("resumed: Progressing %s", c)
	}
}

// TestRollbackKeepsHistory: going back to revision 1's template reuses
// its ReplicaSet as revision 3 and records 1 in revision-history.
func TestRollbackKeepsHistory(t *testing.T) {
	f := newFixture(t, newDeployment(1, "nginx:1"))
	for _, image := range []string{"nginx:2", "nginx:1"} {
		for range 4 {
			f.sync()
			f.settle(true)
		}
		d := f.deployment()
		d.Spec.Template.Spec.Containers[0].Image = image
		_, _ = f.client.AppsV1().Deployments("ns").Update(context.Background(), d, metav1.UpdateOptions{})
	}
	for range 4 {
		f.sync()
		f.settle(true)
	}
	rss := f.replicaSets()
	if len(rss) != 2 || rss[1].Spec.Template.Spec.Containers[0].Image != "nginx:1" || rss[1].Annotations[RevisionAnnotation] != "3" || rss[1].Annotations[RevisionHistoryAnnotation] != "1" {
		for _, rs := range rss {
			t.Logf("%s %v", rs.Name, rs.Annotations)
		}
		t.Fatal("revision 1's ReplicaSet must become revision 3 with history 1")
	}
	if f.deployment().Annotations[RevisionAnnotation] != "3" {
		t.Errorf("deployment revision %q", f.deployment().Annotations[RevisionAnnotation])
	}
}

// TestRevisionHistoryLimit: scaled-down ReplicaSets beyond the limit
// are deleted, oldest revision first.
func TestRevisionHistoryLimit(t *testing.T) {
	d := newDeployment(1, "v0")
	d.Spec.RevisionHistoryLimit = ptr.To[int32](1)
	f := newFixture(t, d)
	for i := 1; i <= 3; i++ {
		for range 4 {
			f.sync()
			f.settle(true)
		}
		d := f.deployment()
		d.Spec.Template.Spec.Containers[0].Image = "v" + string(rune('0'+i))
		_, _ = f.client.AppsV1().Deployments("ns").Update(context.Background(), d, metav1.UpdateOptions{})
	}
	for range 4 {
		f.sync()
		f.settle(true)
	}
	var revs []string
	for _, rs := range f.replicaSets() {
		revs = append(revs, rs.Annotations[RevisionAnnotation])
	}
	if strings.Join(revs, ",") != "3,4" {
		t.Errorf("revisions kept %v, want 3,4", revs)
	}
}

// TestFenceposts pins upstream's rounding: surge up, unavailable down,
// never both zero.
func TestFenceposts(t *testing.T) {
	tests := []struct {
		surge, unavail intstr.IntOrString
		replicas       int32
		wantS, wantU   int32
	}{
		{intstr.FromString("25%"), intstr.FromString("25%"), 10, 3, 2},
		{intstr.FromString("25%"), intstr.FromString("25%"), 1, 1, 0},
		{intstr.FromInt32(0), intstr.FromString("10%"), 5, 0, 1},
		{intstr.FromInt32(0), intstr.FromInt32(0), 3, 0, 1},
		{intstr.FromString("50%"), intstr.FromString("50%"), 3, 2, 1},
	}
	for _, tt := range tests {
		s, u, err := resolveFenceposts(&tt.surge, &tt.unavail, tt.replicas)
		if err != nil || s != tt.wantS || u != tt.wantU {
			t.Errorf("%s/%s of %d = %d/%d (%v), want %d/%d", tt.surge.String(), tt.unavail.String(), tt.replicas, s, u, err, tt.wantS, tt.wantU)
		}
	}
}

// TestProportionalScaling: scaling a Deployment mid-rollout from 10 to
// 15 (maxSurge 3: max 13 -> 18) spreads the 5 extra replicas by the
// ReplicaSets' sizes, rounded, and rewrites their replica annotations.
func TestProportionalScaling(t *testing.T) {
	d := newDeployment(15, "v2")
	d.Spec.Strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromInt32(3))
	d.Spec.Strategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(2))
	mk := func(name string, replicas int32, age time.Duration) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name),
			CreationTimestamp: metav1.NewTime(start.Add(-age)),
			Annotations:       map[string]string{DesiredReplicasAnnotation: "10", MaxReplicasAnnotation: "13"}},
			Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas)}}
	}
	old, newer := mk("old", 8, time.Hour), mk("new", 5, time.Minute)
	f := newFixture(t, d, old, newer)
	if err := f.c.scale(context.Background(), d, newer, []*appsv1.ReplicaSet{old}); err != nil {
		t.Fatal(err)
	}
	// allowed 18, 13 now: +5; old 8*18/13=11.08 -> +3, new 5*18/13=6.9 -> +2.
	for name, want := range map[string]int32{"old": 11, "new": 7} {
		rs, _ := f.client.AppsV1().ReplicaSets("ns").Get(context.Background(), name, metav1.GetOptions{})
		if replicasOf(rs) != want || rs.Annotations[DesiredReplicasAnnotation] != "15" || rs.Annotations[MaxReplicasAnnotation] != "18" {
			t.Errorf("%s: %d replicas, annotations %v; want %d", name, replicasOf(rs), rs.Annotations, want)
		}
	}
}

// TestComputeHashCollision: the collision count changes the hash.
func TestComputeHashCollision(t *testing.T) {
	tmpl := &newDeployment(1, "x").Spec.Template
	if ComputeHash(tmpl, nil) == ComputeHash(tmpl, ptr.To[int32](1)) || ComputeHash(tmpl, nil) != ComputeHash(tmpl.DeepCopy(), nil) {
		t.Error("hash must be stable and depend on the collision count")
	}
}
