package podcontrol

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
)

// TestSlowStartBatch pins upstream's batches 1, 2, 4, ...: after a batch
// with a failure no further call is made.
func TestSlowStartBatch(t *testing.T) {
	tests := []struct {
		name      string
		count     int
		failAfter int32 // calls beyond this fail; -1 never
		wantCalls int32
		wantOK    int
	}{
		{"all succeed", 10, -1, 10, 10},
		{"first fails", 10, 0, 1, 0},
		{"fails in third batch", 10, 3, 7, 3},
		{"zero", 0, -1, 0, 0},
	}
	for _, tt := range tests {
		var calls atomic.Int32
		ok, err := SlowStartBatch(tt.count, SlowStartInitialBatchSize, func() error {
			if n := calls.Add(1); tt.failAfter >= 0 && n > tt.failAfter {
				return errors.New("quota")
			}
			return nil
		})
		if calls.Load() != tt.wantCalls || ok != tt.wantOK || (err != nil) != (tt.failAfter >= 0) {
			t.Errorf("%s: calls=%d ok=%d err=%v, want calls=%d ok=%d", tt.name, calls.Load(), ok, err, tt.wantCalls, tt.wantOK)
		}
	}
}

// TestExpectations: creates and deletes must be observed (each delete
// once) or expire after five minutes before the controller acts again.
func TestExpectations(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	e := NewExpectations(clk)
	if !e.Satisfied("ns/rs") {
		t.Fatal("no record must be satisfied")
	}
	e.ExpectCreations("ns/rs", 2)
	e.CreationObserved("ns/rs")
	if e.Satisfied("ns/rs") {
		t.Fatal("one create is still expected")
	}
	e.CreationObserved("ns/rs")
	if !e.Satisfied("ns/rs") {
		t.Fatal("both creates observed")
	}
	e.ExpectDeletions("ns/rs", []string{"ns/a", "ns/b"})
	e.DeletionObserved("ns/rs", "ns/a")
	e.DeletionObserved("ns/rs", "ns/a") // the delete after the deletionTimestamp
	e.DeletionObserved("ns/rs", "ns/other")
	if e.Satisfied("ns/rs") {
		t.Fatal("ns/b is still expected to go")
	}
	clk.Step(ExpectationsTimeout + time.Second)
	if !e.Satisfied("ns/rs") {
		t.Fatal("expectations must expire")
	}
}

// TestExpectCounts: counted expectations (the DaemonSet's and Job's)
// are met once as many creates and deletes were observed.
func TestExpectCounts(t *testing.T) {
	e := NewExpectations(clocktesting.NewFakeClock(time.Now()))
	e.ExpectCounts("ns/ds", 2, 1)
	for _, step := range []struct{ adds, dels int }{{1, 0}, {0, 1}} {
		e.Observed("ns/ds", step.adds, step.dels)
		if e.Satisfied("ns/ds") {
			t.Fatalf("satisfied after observing %+v", step)
		}
	}
	e.Observed("ns/ds", 1, 0)
	if !e.Satisfied("ns/ds") {
		t.Fatal("everything observed must satisfy")
	}
}

func pod(name string, lbls map[string]string, owner types.UID) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name + "-uid"), Labels: lbls}}
	if owner != "" {
		t := true
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "o", UID: owner, Controller: &t}}
	}
	return p
}

// TestClaimPods pins ClaimPods: adopt matching orphans, keep matching own
// Pods, release own Pods that no longer match, ignore other
// controllers' Pods; an owner being deleted adopts and releases nothing.
func TestClaimPods(t *testing.T) {
	web := map[string]string{"app": "web"}
	other := map[string]string{"app": "db"}
	pods := []*corev1.Pod{
		pod("orphan", web, ""), pod("mine", web, "rs-uid"), pod("strayed", other, "rs-uid"),
		pod("theirs", web, "other-uid"), pod("unrelated", other, ""),
	}
	tests := []struct {
		name        string
		deleting    bool
		wantClaimed []string
		wantPatched []string
	}{
		{"live owner", false, []string{"orphan", "mine"}, []string{"orphan", "strayed"}},
		{"owner being deleted", true, []string{"mine"}, nil},
	}
	for _, tt := range tests {
		var objs []any
		for _, p := range pods {
			objs = append(objs, p)
		}
		client := fake.NewClientset()
		for _, p := range pods {
			_ = client.Tracker().Add(p)
		}
		var patched []string
		client.PrependReactor("patch", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
			patched = append(patched, a.(clienttesting.PatchAction).GetName())
			return true, &corev1.Pod{}, nil
		})
		owner := &metav1.ObjectMeta{Name: "o", Namespace: "ns", UID: "rs-uid"}
		if tt.deleting {
			now := metav1.Now()
			owner.DeletionTimestamp = &now
		}
		m := &RefManager{Owner: owner, OwnerGVK: metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}, Selector: labels.SelectorFromSet(web)}
		got, err := ClaimPods(context.Background(), m, &Control{Client: client, Recorder: &events.FakeRecorder{}}, pods)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if names := podNames(got); !equal(names, tt.wantClaimed) {
			t.Errorf("%s: claimed %v, want %v", tt.name, names, tt.wantClaimed)
		}
		if !equal(patched, tt.wantPatched) {
			t.Errorf("%s: patched %v, want %v", tt.name, patched, tt.wantPatched)
		}
	}
}

// TestClaimRefusedWhenOwnerGone: the uncached recheck stops adoption.
func TestClaimRefusedWhenOwnerGone(t *testing.T) {
	owner := &metav1.ObjectMeta{Name: "o", Namespace: "ns", UID: "rs-uid"}
	m := &RefManager{Owner: owner, Selector: labels.Everything(), CanAdopt: RecheckDeletion(func(context.Context) (metav1.Object, error) {
		return &metav1.ObjectMeta{Name: "o", Namespace: "ns", UID: "new-uid"}, nil
	}, "ReplicaSet", owner)}
	got, err := ClaimPods(context.Background(), m, &Control{Client: fake.NewClientset()}, []*corev1.Pod{pod("orphan", nil, "")})
	if err == nil || len(got) != 0 {
		t.Fatalf("claimed %v, err %v; want an error and nothing", podNames(got), err)
	}
}

// TestPodFromTemplate: labels, generateName "<owner>-" and controllerRef.
func TestPodFromTemplate(t *testing.T) {
	owner := &metav1.ObjectMeta{Name: "web-5d9c", UID: "u"}
	ref := NewControllerRef(owner, metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"})
	p, err := PodFromTemplate(&corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}}, owner, ref)
	if err != nil {
		t.Fatal(err)
	}
	if p.GenerateName != "web-5d9c-" || p.Labels["app"] != "web" || len(p.OwnerReferences) != 1 || !*p.OwnerReferences[0].Controller || !*p.OwnerReferences[0].BlockOwnerDeletion || p.OwnerReferences[0].APIVersion != "apps/v1" {
		t.Errorf("pod = %+v", p.ObjectMeta)
	}
	if _, err := PodFromTemplate(&corev1.PodTemplateSpec{}, owner, ref); err == nil {
		t.Error("a template without labels must be refused")
	}
}

// TestRankedPods pins the scale-down order.
func TestRankedPods(t *testing.T) {
	now := time.Now()
	mk := func(name, node string, phase corev1.PodPhase, ready bool, age time.Duration) *corev1.Pod {
		p := pod(name, nil, "")
		p.Spec.NodeName, p.Status.Phase = node, phase
		p.CreationTimestamp = metav1.NewTime(now.Add(-age))
		if ready {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-age))}}
		}
		return p
	}
	pods := []*corev1.Pod{
		mk("ready-old", "n", corev1.PodRunning, true, 100*time.Hour),
		mk("ready-new", "n", corev1.PodRunning, true, time.Minute),
		mk("running", "n", corev1.PodRunning, false, time.Hour),
		mk("pending", "n", corev1.PodPending, false, time.Hour),
		mk("unscheduled", "", corev1.PodPending, false, time.Hour),
	}
	r := RankedPods{Pods: pods, Rank: make([]int, len(pods)), Now: now}
	sort.Sort(r)
	want := []string{"unscheduled", "pending", "running", "ready-new", "ready-old"}
	if got := podNames(r.Pods); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func podNames(pods []*corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	sort.Strings(a)
	sort.Strings(b)
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestClaimPatchingFilter: through a real (fake) server, a matching
// orphan is adopted with a blocking controller reference, a controlled
// Pod that stopped matching is released, and a Pod the filter refuses
// is neither adopted nor claimed.
func TestClaimPatchingFilter(t *testing.T) {
	ctx := context.Background()
	owner := &metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "set"}
	gvk := metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}
	app := map[string]string{"app": "web"}
	pods := []*corev1.Pod{pod("web-0", app, "set"), pod("web-1", app, ""), pod("web-2", nil, "set"), pod("stranger", app, "")}
	client := fake.NewClientset()
	for _, p := range pods {
		p.UID = types.UID(p.Name)
		_ = client.Tracker().Add(p)
	}
	m := &RefManager{Owner: owner, OwnerGVK: gvk, Selector: labels.SelectorFromSet(app),
		Filter: func(o metav1.Object) bool { return o.GetName() != "stranger" }}
	got, err := ClaimPatching(ctx, m, pods, (&Control{Client: client}).PatchPod)
	if err != nil {
		t.Fatal(err)
	}
	if names := podNames(got); !equal(names, []string{"web-0", "web-1"}) {
		t.Fatalf("claimed %v", names)
	}
	adopted, _ := client.CoreV1().Pods("ns").Get(ctx, "web-1", metav1.GetOptions{})
	if ref := metav1.GetControllerOf(adopted); ref == nil || ref.UID != "set" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("web-1 owners = %+v", adopted.OwnerReferences)
	}
	released, _ := client.CoreV1().Pods("ns").Get(ctx, "web-2", metav1.GetOptions{})
	if len(released.OwnerReferences) != 0 {
		t.Errorf("web-2 owners = %+v", released.OwnerReferences)
	}
	if stranger, _ := client.CoreV1().Pods("ns").Get(ctx, "stranger", metav1.GetOptions{}); len(stranger.OwnerReferences) != 0 {
		t.Error("stranger adopted")
	}
}
