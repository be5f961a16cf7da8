package resourceclaim

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
)

const ns = "default"

type fixture struct {
	client   *fake.Clientset
	c        *Controller
	recorder *events.FakeRecorder
}

// newFixture starts a controller's informers over a fake clientset
// holding objs; a created claim gets its generated name, which the fake
// does not do. Workers are not run: tests call sync themselves.
func newFixture(t testing.TB, objs ...runtime.Object) *fixture {
	t.Helper()
	client := fake.NewClientset(objs...)
	var n atomic.Int32
	client.PrependReactor("create", "resourceclaims", func(a k8stesting.Action) (bool, runtime.Object, error) {
		claim := a.(k8stesting.CreateAction).GetObject().(*resourceapi.ResourceClaim)
		if claim.Name == "" && claim.GenerateName != "" {
			claim.Name = fmt.Sprintf("%s%05d", claim.GenerateName, n.Add(1))
		}
		return false, nil, nil
	})
	f := informers.NewSharedInformerFactory(client, 0)
	rec := events.NewFakeRecorder(10)
	c, err := New(client, f.Core().V1().Pods(), f.Resource().V1().ResourceClaims(), f.Resource().V1().ResourceClaimTemplates(), rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); f.Shutdown(); c.queue.ShutDown() })
	f.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		t.Fatal("caches did not sync")
	}
	return &fixture{client: client, c: c, recorder: rec}
}

func (f *fixture) actions(verb, resource string) []k8stesting.Action {
	var out []k8stesting.Action
	for _, a := range f.client.Actions() {
		if a.GetVerb() == verb && a.GetResource().Resource == resource {
			out = append(out, a)
		}
	}
	return out
}

func template(name string) *resourceapi.ResourceClaimTemplate {
	return &resourceapi.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: resourceapi.ResourceClaimTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"l": "v"}, Annotations: map[string]string{"a": "v"}},
			Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{
				Name: "gpu", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "gpu.example.com"},
			}}}},
		},
	}
}

func podWithTemplate(name, uid, tmpl string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID(uid)},
		Spec: corev1.PodSpec{
			Containers:     []corev1.Container{{Name: "c", Image: "i"}},
			ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To(tmpl)}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
}

// TestSyncPodCreatesClaimFromTemplate pins the generated claim (name,
// owner reference, annotation, template metadata and spec) and the
// Pod's status.resourceClaimStatuses entry written by server-side apply.
func TestSyncPodCreatesClaimFromTemplate(t *testing.T) {
	f := newFixture(t, template("tmpl"), podWithTemplate("web", "uid-1", "tmpl"))
	if err := f.c.sync(context.Background(), "pod:default/web"); err != nil {
		t.Fatal(err)
	}
	claims, err := f.client.ResourceV1().ResourceClaims(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil || len(claims.Items) != 1 {
		t.Fatalf("claims: %v, %v", claims, err)
	}
	claim := claims.Items[0]
	if claim.GenerateName != "web-gpu-" {
		t.Errorf("generateName %q, want web-gpu-", claim.GenerateName)
	}
	want := metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: "web", UID: "uid-1", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
	if len(claim.OwnerReferences) != 1 || !reflect.DeepEqual(claim.OwnerReferences[0], want) {
		t.Errorf("owner references %+v, want %+v", claim.OwnerReferences, want)
	}
	if claim.Annotations[PodClaimNameAnnotation] != "gpu" || claim.Annotations["a"] != "v" || claim.Labels["l"] != "v" {
		t.Errorf("metadata: annotations %v labels %v", claim.Annotations, claim.Labels)
	}
	if len(claim.Spec.Devices.Requests) != 1 || claim.Spec.Devices.Requests[0].Exactly.DeviceClassName != "gpu.example.com" {
		t.Errorf("spec %+v not the template's", claim.Spec)
	}
	pod, err := f.client.CoreV1().Pods(ns).Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := pod.Status.ResourceClaimStatuses
	if len(st) != 1 || st[0].Name != "gpu" || ptr.Deref(st[0].ResourceClaimName, "") != claim.Name {
		t.Errorf("resourceClaimStatuses %+v, want gpu -> %s", st, claim.Name)
	}
	patches := f.actions("patch", "pods")
	if len(patches) != 1 || patches[0].GetSubresource() != "status" || patches[0].(k8stesting.PatchAction).GetPatchType() != types.ApplyPatchType {
		t.Errorf("pod writes %v, want one apply to pods/status", patches)
	}
}

// TestSyncPodIdempotent: a status write that fails after the claim was
// created is retried without a second claim (the mutation cache finds
// it before the informer does), and an existing claim the Pod owns with
// the pod-claim annotation is adopted, not duplicated.
func TestSyncPodIdempotent(t *testing.T) {
	t.Run("status write fails once", func(t *testing.T) {
		f := newFixture(t, template("tmpl"), podWithTemplate("web", "uid-1", "tmpl"))
		var failed atomic.Bool
		f.client.PrependReactor("patch", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
			if failed.CompareAndSwap(false, true) {
				return true, nil, apierrors.NewServiceUnavailable("try again")
			}
			return false, nil, nil
		})
		if err := f.c.sync(context.Background(), "pod:default/web"); err == nil {
			t.Fatal("first sync succeeded though the status write failed")
		}
		if err := f.c.sync(context.Background(), "pod:default/web"); err != nil {
			t.Fatal(err)
		}
		if n := len(f.actions("create", "resourceclaims")); n != 1 {
			t.Errorf("%d claims created, want 1", n)
		}
	})
	t.Run("orphan claim adopted", func(t *testing.T) {
		orphan := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{
			Name: "web-gpu-old", Namespace: ns, ResourceVersion: "1",
			Annotations:     map[string]string{PodClaimNameAnnotation: "gpu"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "web", UID: "uid-1", Controller: ptr.To(true)}},
		}}
		f := newFixture(t, template("tmpl"), podWithTemplate("web", "uid-1", "tmpl"), orphan)
		if err := f.c.sync(context.Background(), "pod:default/web"); err != nil {
			t.Fatal(err)
		}
		if n := len(f.actions("create", "resourceclaims")); n != 0 {
			t.Errorf("%d claims created, want 0", n)
		}
		pod, _ := f.client.CoreV1().Pods(ns).Get(context.Background(), "web", metav1.GetOptions{})
		if st := pod.Status.ResourceClaimStatuses; len(st) != 1 || ptr.Deref(st[0].ResourceClaimName, "") != "web-gpu-old" {
			t.Errorf("resourceClaimStatuses %+v, want the orphan", st)
		}
	})
	t.Run("recorded claim exists", func(t *testing.T) {
		pod := podWithTemplate("web", "uid-1", "tmpl")
		pod.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: ptr.To("web-gpu-x")}}
		claim := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "web-gpu-x", Namespace: ns,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "web", UID: "uid-1", Controller: ptr.To(true)}}}}
		f := newFixture(t, template("tmpl"), pod, claim)
		if f.c.podNeedsWork(pod) {
			t.Error("a pod whose claim exists needs work")
		}
		if err := f.c.sync(context.Background(), "pod:default/web"); err != nil {
			t.Fatal(err)
		}
		if n := len(f.actions("create", "resourceclaims")) + len(f.actions("patch", "pods")); n != 0 {
			t.Errorf("%d writes, want none", n)
		}
	})
}

// TestSyncPodMissingTemplate: the Pod gets upstream's warning event.
func TestSyncPodMissingTemplate(t *testing.T) {
	f := newFixture(t, podWithTemplate("web", "uid-1", "absent"))
	err := f.c.sync(context.Background(), "pod:default/web")
	if err == nil {
		t.Fatal("sync succeeded without the template")
	}
	select {
	case e := <-f.recorder.Events:
		if !strings.HasPrefix(e, "Warning FailedResourceClaimCreation PodResourceClaim gpu: resource claim template \"absent\"") {
			t.Errorf("event %q", e)
		}
	default:
		t.Error("no event")
	}
}

// TestGenerateName pins upstream's proportional cut of long names.
func TestGenerateName(t *testing.T) {
	long := strings.Repeat("p", 60)
	tests := []struct{ pod, claim, want string }{
		{"web", "gpu", "web-gpu-"},
		{long, "gpu", strings.Repeat("p", 52) + "-gp"},
		{strings.Repeat("p", 40), strings.Repeat("c", 40), strings.Repeat("p", 27) + "-" + strings.Repeat("c", 27)},
	}
	for _, tt := range tests {
		if got := generateName(tt.pod, tt.claim); got != tt.want {
			t.Errorf("generateName(%d, %d chars) = %q, want %q", len(tt.pod), len(tt.claim), got, tt.want)
		}
	}
}

// TestRunReactsToEvents: with workers running, a Pod created after start
// gets its claim and status through the informer event handlers alone,
// and marking it Failed gets the claim deleted.
func TestRunReactsToEvents(t *testing.T) {
	f := newFixture(t, template("tmpl"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.c.Run(ctx, 2) }()
	t.Cleanup(func() { cancel(); <-done })
	if _, err := f.client.CoreV1().Pods(ns).Create(ctx, podWithTemplate("web", "uid-1", "tmpl"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var claimName string
	waitFor(t, "resourceClaimStatuses", func(ctx context.Context) (bool, error) {
		p, err := f.client.CoreV1().Pods(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil || len(p.Status.ResourceClaimStatuses) == 0 {
			return false, err
		}
		claimName = ptr.Deref(p.Status.ResourceClaimStatuses[0].ResourceClaimName, "")
		return claimName != "", nil
	})
	p, err := f.client.CoreV1().Pods(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = corev1.PodFailed
	if _, err := f.client.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "claim deleted", func(ctx context.Context) (bool, error) {
		_, err := f.client.ResourceV1().ResourceClaims(ns).Get(ctx, claimName, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if n := len(f.actions("create", "resourceclaims")); n != 1 {
		t.Errorf("%d claims created, want 1", n)
	}
}

func waitFor(t *testing.T, what string, cond wait.ConditionWithContextFunc) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, wait.ForeverTestTimeout, true, cond); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
