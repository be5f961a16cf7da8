package garbagecollector

import (
	"os"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"

	"github.com/kapi-dev/kapi/internal/leakcheck"
)

func TestMain(m *testing.M) {
	os.Exit(leakcheck.Main(m, "internal/controllers/garbagecollector."))
}

// leakedGoroutines returns the stacks still running this package's code,
// giving exiting goroutines a moment.

var configMapKind = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}

// cm is a ConfigMap's metadata, as a metadata informer delivers it.
func cm(ns, name string, owners ...metav1.OwnerReference) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Namespace: ns, Name: name, UID: types.UID(ns + "/" + name), OwnerReferences: owners,
	}}
}

func owns(owner *metav1.PartialObjectMetadata, block bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID, BlockOwnerDeletion: &block}
}

func deleting(obj *metav1.PartialObjectMetadata, finalizers ...string) *metav1.PartialObjectMetadata {
	obj = obj.DeepCopy()
	now := metav1.Now()
	obj.DeletionTimestamp = &now
	obj.Finalizers = finalizers
	return obj
}

// feeder drives the graph directly, one event at a time.
type feeder struct {
	t        *testing.T
	gc       *GarbageCollector
	recorder *record.FakeRecorder
}

func newFeeder(t *testing.T) *feeder {
	rec := record.NewFakeRecorder(10)
	gc := New(Config{Recorder: rec})
	t.Cleanup(func() {
		gc.graphChanges.ShutDown()
		gc.attemptToDelete.ShutDown()
		gc.attemptToOrphan.ShutDown()
	})
	return &feeder{t: t, gc: gc, recorder: rec}
}

func (f *feeder) feed(t eventType, obj, old *metav1.PartialObjectMetadata) {
	e := &event{eventType: t, obj: obj, gvk: configMapKind}
	if old != nil {
		e.oldObj = old
	}
	f.gc.graphChanges.Add(e)
	if !f.gc.processGraphChange() {
		f.t.Fatal("graph changes shut down")
	}
}

// drain empties q and returns the names of its nodes, sorted.
func drain(q workqueue.TypedRateLimitingInterface[*node]) []string {
	var out []string
	for q.Len() > 0 {
		n, _ := q.Get()
		out = append(out, n.identity.Name)
		q.Done(n)
		q.Forget(n)
	}
	slices.Sort(out)
	return out
}

func (f *feeder) node(uid types.UID) *node {
	f.t.Helper()
	n, ok := f.gc.nodes[uid]
	if !ok {
		f.t.Fatalf("no node %s in the graph", uid)
	}
	return n
}

func dependentNames(n *node) []string {
	var out []string
	for d := range n.dependents {
		out = append(out, d.identity.Name)
	}
	slices.Sort(out)
	return out
}

// TestGraphVirtualOwner: a dependent whose owner was not observed links
// to a virtual node, queued for verification; observing the owner makes
// it real without queueing dependents that agree with it.
func TestGraphVirtualOwner(t *testing.T) {
	f := newFeeder(t)
	owner := cm("ns", "owner")
	f.feed(addEvent, cm("ns", "dep", owns(owner, true)), nil)
	n := f.node(owner.UID)
	if !n.virtual || n.identity.Namespace != "ns" || !slices.Equal(dependentNames(n), []string{"dep"}) {
		t.Fatalf("virtual owner %+v dependents %v", n, dependentNames(n))
	}
	if got := drain(f.gc.attemptToDelete); !slices.Equal(got, []string{"owner"}) {
		t.Fatalf("attemptToDelete %v, want the virtual owner", got)
	}
	f.feed(addEvent, owner, nil)
	if n := f.node(owner.UID); n.virtual {
		t.Fatal("the owner is still virtual after it was observed")
	}
	if got := drain(f.gc.attemptToDelete); len(got) != 0 {
		t.Fatalf("attemptToDelete %v, want nothing", got)
	}
}

// TestGraphTransitions: the finalizers a deletion sets queue the work.
func TestGraphTransitions(t *testing.T) {
	for _, tc := range []struct {
		name                string
		finalizer           string
		wantDelete, wantOrp []string
		wantDeleting        bool
	}{
		{"foreground", metav1.FinalizerDeleteDependents, []string{"dep", "owner"}, nil, true},
		{"orphan", metav1.FinalizerOrphanDependents, nil, []string{"owner"}, false},
		{"background", "", nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFeeder(t)
			owner := cm("ns", "owner")
			f.feed(addEvent, owner, nil)
			f.feed(addEvent, cm("ns", "dep", owns(owner, true)), nil)
			drain(f.gc.attemptToDelete)
			var finalizers []string
			if tc.finalizer != "" {
				finalizers = []string{tc.finalizer}
			}
			f.feed(updateEvent, deleting(owner, finalizers...), owner)
			if got := drain(f.gc.attemptToDelete); !slices.Equal(got, tc.wantDelete) {
				t.Errorf("attemptToDelete %v, want %v", got, tc.wantDelete)
			}
			if got := drain(f.gc.attemptToOrphan); !slices.Equal(got, tc.wantOrp) {
				t.Errorf("attemptToOrphan %v, want %v", got, tc.wantOrp)
			}
			if n := f.node(owner.UID); n.deletingDependents != tc.wantDeleting || !n.beingDeleted {
				t.Errorf("deletingDependents %v beingDeleted %v, want %v and true", n.deletingDependents, n.beingDeleted, tc.wantDeleting)
			}
		})
	}
}

// TestGraphDelete: a deleted owner leaves the graph, its dependents are
// queued and it is remembered absent; a dependent's deletion queues its
// owner when that owner waits for its dependents.
func TestGraphDelete(t *testing.T) {
	f := newFeeder(t)
	owner := cm("ns", "owner")
	dep := cm("ns", "dep", owns(owner, true))
	f.feed(addEvent, owner, nil)
	f.feed(addEvent, dep, nil)
	f.feed(updateEvent, deleting(owner, metav1.FinalizerDeleteDependents), owner)
	drain(f.gc.attemptToDelete)
	f.feed(deleteEvent, dep, nil)
	if got := drain(f.gc.attemptToDelete); !slices.Equal(got, []string{"owner"}) {
		t.Fatalf("attemptToDelete %v after the dependent went, want the owner", got)
	}
	f.feed(addEvent, cm("ns", "dep2", owns(owner, false)), nil)
	f.feed(deleteEvent, owner, nil)
	if _, ok := f.gc.nodes[owner.UID]; ok {
		t.Fatal("the deleted owner is still in the graph")
	}
	if got := drain(f.gc.attemptToDelete); !slices.Equal(got, []string{"dep2"}) {
		t.Fatalf("attemptToDelete %v, want the dependent", got)
	}
	if _, ok := f.gc.absentOwners.Get(objectReference{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID, Namespace: "ns"}); !ok {
		t.Fatal("the deleted owner is not remembered absent")
	}
}

// TestGraphUnblock: a dependent that stops blocking its owner (reference
// removed, or blockOwnerDeletion turned off) queues the owner.
func TestGraphUnblock(t *testing.T) {
	for _, tc := range []struct {
		name   string
		owners func(owner *metav1.PartialObjectMetadata) []metav1.OwnerReference
		want   []string
	}{
		{"removed", func(*metav1.PartialObjectMetadata) []metav1.OwnerReference { return nil }, []string{"owner"}},
		{"unblocked", func(o *metav1.PartialObjectMetadata) []metav1.OwnerReference {
			return []metav1.OwnerReference{owns(o, false)}
		}, []string{"owner"}},
		{"unchanged", func(o *metav1.PartialObjectMetadata) []metav1.OwnerReference {
			return []metav1.OwnerReference{owns(o, true)}
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFeeder(t)
			owner := cm("ns", "owner")
			dep := cm("ns", "dep", owns(owner, true))
			f.feed(addEvent, owner, nil)
			f.feed(addEvent, dep, nil)
			drain(f.gc.attemptToDelete)
			updated := dep.DeepCopy()
			updated.OwnerReferences = tc.owners(owner)
			f.feed(updateEvent, updated, dep)
			if got := drain(f.gc.attemptToDelete); !slices.Equal(got, tc.want) {
				t.Fatalf("attemptToDelete %v, want %v", got, tc.want)
			}
			if got := dependentNames(f.node(owner.UID)); len(updated.OwnerReferences) == 0 && len(got) != 0 {
				t.Fatalf("owner's dependents %v after the reference went", got)
			}
		})
	}
}

// TestGraphInvalidNamespace: a dependent naming an observed owner of
// another namespace gets upstream's warning and is queued for a lookup.
func TestGraphInvalidNamespace(t *testing.T) {
	f := newFeeder(t)
	owner := cm("a", "owner")
	f.feed(addEvent, owner, nil)
	f.feed(addEvent, cm("b", "dep", owns(owner, false)), nil)
	if got := drain(f.gc.attemptToDelete); !slices.Equal(got, []string{"dep"}) {
		t.Fatalf("attemptToDelete %v, want the dependent", got)
	}
	want := `Warning OwnerRefInvalidNamespace ownerRef [v1/ConfigMap, namespace: b, name: owner, uid: a/owner] does not exist in namespace "b"`
	select {
	case got := <-f.recorder.Events:
		if got != want {
			t.Fatalf("event %q, want %q", got, want)
		}
	default:
		t.Fatal("no event recorded")
	}
}

func TestReferencesDiffs(t *testing.T) {
	yes, no := true, false
	a := metav1.OwnerReference{UID: "a", Name: "a", BlockOwnerDeletion: &yes}
	aUnblocked := metav1.OwnerReference{UID: "a", Name: "a", BlockOwnerDeletion: &no}
	b := metav1.OwnerReference{UID: "b", Name: "b"}
	c := metav1.OwnerReference{UID: "c", Name: "c"}
	added, removed, changed := referencesDiffs([]metav1.OwnerReference{a, b}, []metav1.OwnerReference{aUnblocked, c})
	if len(added) != 1 || added[0].UID != "c" || len(removed) != 1 || removed[0].UID != "b" || len(changed) != 1 || changed[0][1].UID != "a" {
		t.Fatalf("added %v removed %v changed %v", added, removed, changed)
	}
}
