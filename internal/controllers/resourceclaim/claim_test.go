package resourceclaim

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

func podConsumer(name, uid string) resourceapi.ResourceClaimConsumerReference {
	return resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: name, UID: types.UID(uid)}
}

func allocation() *resourceapi.AllocationResult {
	return &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{
		Request: "gpu", Driver: "gpu.example.com", Pool: "node-1", Device: "gpu-0",
	}}}}
}

func claimWith(reserved []resourceapi.ResourceClaimConsumerReference, alloc bool, finalizer bool) *resourceapi.ResourceClaim {
	c := &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "claim", Namespace: ns, UID: "claim-uid", ResourceVersion: "5"},
		Status:     resourceapi.ResourceClaimStatus{ReservedFor: reserved},
	}
	if alloc {
		c.Status.Allocation = allocation()
	}
	if finalizer {
		c.Finalizers = []string{resourceapi.Finalizer}
	}
	return c
}

func pod(name, uid string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID(uid)}, Status: corev1.PodStatus{Phase: phase}}
}

// TestSyncClaimReservedFor pins which reservedFor entries go (Pods gone,
// replaced, terminal, or deleted before scheduling) and which stay (Pods
// that may run, entries that are not Pods), and that the last consumer
// going clears the scheduler's allocation and then its delete-protection
// finalizer.
func TestSyncClaimReservedFor(t *testing.T) {
	deletedUnscheduled := pod("deleting", "uid-d", corev1.PodPending)
	deletedUnscheduled.DeletionTimestamp = ptr.To(metav1.Now())
	deletedUnscheduled.Finalizers = []string{"example.com/keep"}
	workload := resourceapi.ResourceClaimConsumerReference{APIGroup: "example.com", Resource: "workloads", Name: "w", UID: "uid-w"}
	tests := []struct {
		name          string
		objs          []runtime.Object
		claim         *resourceapi.ResourceClaim
		wantReserved  []string // consumer names left; nil when no status write
		wantAllocated bool
		wantFinalizer bool
	}{
		{"running pod stays", []runtime.Object{pod("a", "uid-a", corev1.PodRunning)},
			claimWith([]resourceapi.ResourceClaimConsumerReference{podConsumer("a", "uid-a")}, true, true), nil, true, true},
		{"pod gone", nil,
			claimWith([]resourceapi.ResourceClaimConsumerReference{podConsumer("a", "uid-a")}, true, true), []string{}, false, false},
		{"pod replaced", []runtime.Object{pod("a", "uid-new", corev1.PodRunning)},
			claimWith([]resourceapi.ResourceClaimConsumerReference{podConsumer("a", "uid-a")}, true, true), []string{}, false, false},
		{"pod succeeded, other stays", []runtime.Object{pod("a", "uid-a", corev1.PodSucceeded), pod("b", "uid-b", corev1.PodRunning)},
			claimWith([]resourceapi.ResourceClaimConsumerReference{podConsumer("a", "uid-a"), podConsumer("b", "uid-b")}, true, true), []string{"b"}, true, true},
		{"pod deleted before scheduling", []runtime.Object{deletedUnscheduled},
			claimWith([]resourceapi.ResourceClaimConsumerReference{podConsumer("deleting", "uid-d")}, true, true), []string{}, false, false},
		{"non-pod consumer kept", nil,
			claimWith([]resourceapi.ResourceClaimConsumerReference{workload, podConsumer("a", "uid-a")}, true, true), []string{"w"}, true, true},
		{"allocation without finalizer stays", nil,
			claimWith([]resourceapi.ResourceClaimConsumerReference{podConsumer("a", "uid-a")}, true, false), []string{}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, append(tt.objs, tt.claim)...)
			if err := f.c.sync(context.Background(), "claim:default/claim"); err != nil {
				t.Fatal(err)
			}
			writes := f.actions("update", "resourceclaims")
			if tt.wantReserved == nil {
				if len(writes) != 0 {
					t.Fatalf("claim written: %v", writes)
				}
				return
			}
			got, err := f.client.ResourceV1().ResourceClaims(ns).Get(context.Background(), "claim", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, r := range got.Status.ReservedFor {
				names = append(names, r.Name)
			}
			if !slices.Equal(names, tt.wantReserved) && len(names)+len(tt.wantReserved) > 0 {
				t.Errorf("reservedFor %v, want %v", names, tt.wantReserved)
			}
			if (got.Status.Allocation != nil) != tt.wantAllocated {
				t.Errorf("allocated %v, want %v", got.Status.Allocation != nil, tt.wantAllocated)
			}
			if slices.Contains(got.Finalizers, resourceapi.Finalizer) != tt.wantFinalizer {
				t.Errorf("finalizers %v, want delete-protection %v", got.Finalizers, tt.wantFinalizer)
			}
		})
	}
}

// TestSyncClaimDeletedClaim: a claim being deleted that nobody uses loses
// a leftover allocation and its finalizer, so its deletion completes.
func TestSyncClaimDeletedClaim(t *testing.T) {
	claim := claimWith(nil, true, true)
	claim.DeletionTimestamp = ptr.To(metav1.Now())
	f := newFixture(t, claim)
	if err := f.c.sync(context.Background(), "claim:default/claim"); err != nil {
		t.Fatal(err)
	}
	got, err := f.client.ResourceV1().ResourceClaims(ns).Get(context.Background(), "claim", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Allocation != nil || len(got.Finalizers) != 0 {
		t.Errorf("allocation %v finalizers %v, want both gone", got.Status.Allocation, got.Finalizers)
	}
}

// TestSyncClaimDeletesGeneratedClaim: an unreserved claim generated for a
// Pod that is done or replaced is deleted; one whose Pod may still run,
// or whose Pod the informer does not know, is kept.
func TestSyncClaimDeletesGeneratedClaim(t *testing.T) {
	generated := func() *resourceapi.ResourceClaim {
		c := claimWith(nil, false, false)
		c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "web", UID: "uid-1", Controller: ptr.To(true)}}
		return c
	}
	tests := []struct {
		name        string
		pod         *corev1.Pod
		wantDeleted bool
	}{
		{"pod failed", pod("web", "uid-1", corev1.PodFailed), true},
		{"pod replaced", pod("web", "uid-2", corev1.PodPending), true},
		{"pod pending", pod("web", "uid-1", corev1.PodPending), false},
		{"pod unknown", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := []runtime.Object{generated()}
			if tt.pod != nil {
				objs = append(objs, tt.pod)
			}
			f := newFixture(t, objs...)
			if err := f.c.sync(context.Background(), "claim:default/claim"); err != nil {
				t.Fatal(err)
			}
			_, err := f.client.ResourceV1().ResourceClaims(ns).Get(context.Background(), "claim", metav1.GetOptions{})
			if deleted := apierrors.IsNotFound(err); deleted != tt.wantDeleted {
				t.Errorf("deleted %v (%v), want %v", deleted, err, tt.wantDeleted)
			}
		})
	}
}

// TestSyncPodReservesForScheduledPod: a Pod that already has a node gets
// its allocated claim reserved; an unallocated one is left alone.
func TestSyncPodReservesForScheduledPod(t *testing.T) {
	for _, allocated := range []bool{true, false} {
		p := pod("web", "uid-1", corev1.PodPending)
		p.Spec.NodeName = "node-1"
		p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("claim")}}
		f := newFixture(t, p, claimWith(nil, allocated, true))
		if got := f.c.podNeedsWork(p); got != allocated {
			t.Errorf("allocated %v: podNeedsWork %v", allocated, got)
		}
		if err := f.c.sync(context.Background(), "pod:default/web"); err != nil {
			t.Fatal(err)
		}
		got, _ := f.client.ResourceV1().ResourceClaims(ns).Get(context.Background(), "claim", metav1.GetOptions{})
		reserved := len(got.Status.ReservedFor) == 1 && got.Status.ReservedFor[0].UID == "uid-1"
		if reserved != allocated {
			t.Errorf("allocated %v: reservedFor %v", allocated, got.Status.ReservedFor)
		}
	}
}

// TestEnqueueDonePod: a finished Pod queues its claims for clean-up and
// is not itself queued for claim creation or reservation; a deleted Pod's
// UID is remembered.
func TestEnqueueDonePod(t *testing.T) {
	f := newFixture(t)
	p := podWithTemplate("web", "uid-1", "tmpl")
	p.Spec.NodeName = "node-1"
	p.Status.Phase = corev1.PodSucceeded
	p.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: ptr.To("web-gpu-x")}}
	p.Status.ExtendedResourceClaimStatus = &corev1.PodExtendedResourceClaimStatus{ResourceClaimName: "web-extended-resources-y"}
	f.c.enqueuePod(p, false)
	f.c.enqueuePod(cacheTombstone(p), true)
	var keys []string
	for f.c.queue.Len() > 0 {
		k, _ := f.c.queue.Get()
		keys = append(keys, k)
		f.c.queue.Done(k)
	}
	slices.Sort(keys)
	want := []string{"claim:default/web-extended-resources-y", "claim:default/web-gpu-x"}
	if !slices.Equal(keys, want) {
		t.Errorf("queued %v, want %v", keys, want)
	}
	if !f.c.deletedPods.has("uid-1") {
		t.Error("deleted pod not remembered")
	}
}

func cacheTombstone(p *corev1.Pod) cache.DeletedFinalStateUnknown {
	return cache.DeletedFinalStateUnknown{Key: p.Namespace + "/" + p.Name, Obj: p}
}
