package garbagecollector

import (
	"context"
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	metadatafake "k8s.io/client-go/metadata/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
)

// staticMapper knows ConfigMaps (namespaced) and ClusterRoles.
type staticMapper struct{ *meta.DefaultRESTMapper }

func (staticMapper) Reset() {}

func newStaticMapper() staticMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(configMapKind, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}, meta.RESTScopeRoot)
	return staticMapper{m}
}

// stored is obj as the fake metadata client keeps it.
func stored(obj *metav1.PartialObjectMetadata) *metav1.PartialObjectMetadata {
	obj = obj.DeepCopy()
	obj.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}
	obj.ResourceVersion = "7"
	return obj
}

// TestAttemptToDelete pins what a worker does with a dependent, given
// what a live lookup finds of its owners: the delete carries the uid and
// resourceVersion as preconditions and the propagation upstream picks.
func TestAttemptToDelete(t *testing.T) {
	owner := cm("ns", "owner")
	waiting := deleting(owner, metav1.FinalizerDeleteDependents)
	for _, tc := range []struct {
		name string
		// live are the objects the server has; dep is in the graph too.
		live       []*metav1.PartialObjectMetadata
		dep        *metav1.PartialObjectMetadata
		wantDelete bool
		wantPolicy metav1.DeletionPropagation
	}{
		{name: "owner absent", dep: cm("ns", "dep", owns(owner, false)), wantDelete: true, wantPolicy: metav1.DeletePropagationBackground},
		{name: "owner present", live: []*metav1.PartialObjectMetadata{owner}, dep: cm("ns", "dep", owns(owner, false))},
		{name: "owner recreated", live: []*metav1.PartialObjectMetadata{func() *metav1.PartialObjectMetadata { o := cm("ns", "owner"); o.UID = "other"; return o }()},
			dep: cm("ns", "dep", owns(owner, false)), wantDelete: true, wantPolicy: metav1.DeletePropagationBackground},
		{name: "owner waits for its dependents", live: []*metav1.PartialObjectMetadata{waiting}, dep: cm("ns", "dep", owns(owner, true)),
			wantDelete: true, wantPolicy: metav1.DeletePropagationBackground},
		{name: "orphan finalizer honoured", dep: func() *metav1.PartialObjectMetadata {
			d := cm("ns", "dep", owns(owner, false))
			d.Finalizers = []string{metav1.FinalizerOrphanDependents}
			return d
		}(), wantDelete: true, wantPolicy: metav1.DeletePropagationOrphan},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []*metav1.PartialObjectMetadata
			for _, o := range append(tc.live, tc.dep) {
				objs = append(objs, stored(o))
			}
			scheme := metadatafake.NewTestScheme()
			if err := metav1.AddMetaToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			client := metadatafake.NewSimpleMetadataClient(scheme)
			for _, o := range objs {
				if _, err := client.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace(o.Namespace).(metadatafake.MetadataClient).CreateFake(o, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			gc := New(Config{Metadata: client, Mapper: newStaticMapper(), Recorder: record.NewFakeRecorder(10)})
			defer gc.graphChanges.ShutDown()
			defer gc.attemptToDelete.ShutDown()
			defer gc.attemptToOrphan.ShutDown()
			f := &feeder{t: t, gc: gc}
			for _, o := range tc.live {
				f.feed(addEvent, o, nil)
			}
			f.feed(addEvent, tc.dep, nil)
			if retry := gc.attemptToDeleteWorker(context.Background(), f.node(tc.dep.UID)); retry {
				t.Fatal("the worker asked for a retry")
			}
			var deletes []clienttesting.DeleteActionImpl
			for _, a := range client.Actions() {
				if d, ok := a.(clienttesting.DeleteActionImpl); ok {
					deletes = append(deletes, d)
				}
			}
			if !tc.wantDelete {
				if len(deletes) != 0 {
					t.Fatalf("deleted %v, want nothing deleted", deletes)
				}
				return
			}
			if len(deletes) != 1 || deletes[0].Name != "dep" {
				t.Fatalf("deletes %v, want dep deleted", deletes)
			}
			opts := deletes[0].DeleteOptions
			if p := opts.Preconditions; p == nil || p.UID == nil || *p.UID != tc.dep.UID || p.ResourceVersion == nil || *p.ResourceVersion != "7" {
				t.Errorf("preconditions %+v, want the uid and resourceVersion", p)
			}
			if opts.PropagationPolicy == nil || *opts.PropagationPolicy != tc.wantPolicy {
				t.Errorf("propagation %v, want %s", opts.PropagationPolicy, tc.wantPolicy)
			}
		})
	}
}

// TestAttemptToDeleteClusterScopedDependent: a cluster-scoped object
// naming a namespaced owner is neither deleted nor retried.
func TestAttemptToDeleteClusterScopedDependent(t *testing.T) {
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	owner := cm("ns", "owner")
	role := &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: "role", UID: "role", OwnerReferences: []metav1.OwnerReference{owns(owner, false)}},
	}
	client := metadatafake.NewSimpleMetadataClient(scheme, role)
	gc := New(Config{Metadata: client, Mapper: newStaticMapper()})
	defer gc.graphChanges.ShutDown()
	defer gc.attemptToDelete.ShutDown()
	defer gc.attemptToOrphan.ShutDown()
	gc.graphChanges.Add(&event{eventType: addEvent, obj: role, gvk: role.GroupVersionKind()})
	gc.processGraphChange()
	if retry := gc.attemptToDeleteWorker(context.Background(), gc.nodes["role"]); retry {
		t.Fatal("the worker asked for a retry")
	}
	for _, a := range client.Actions() {
		if a.GetVerb() == "delete" || a.GetVerb() == "patch" {
			t.Fatalf("action %v on a cluster-scoped dependent", a)
		}
	}
}

// TestDeleteObjectConflict: a delete judged on a stale object (its
// resourceVersion changed) goes ahead without that precondition only if
// the owner references are still the ones judged.
func TestDeleteObjectConflict(t *testing.T) {
	owner := cm("ns", "owner")
	dep := cm("ns", "dep", owns(owner, false))
	for _, tc := range []struct {
		name        string
		judged      []metav1.OwnerReference
		wantDeletes int
		wantErr     bool
	}{
		{"owners unchanged", dep.OwnerReferences, 2, false},
		{"owners changed", nil, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scheme := metadatafake.NewTestScheme()
			if err := metav1.AddMetaToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			client := metadatafake.NewSimpleMetadataClient(scheme, stored(dep))
			client.PrependReactor("delete", "configmaps", func(a clienttesting.Action) (bool, runtime.Object, error) {
				if p := a.(clienttesting.DeleteActionImpl).DeleteOptions.Preconditions; p != nil && p.ResourceVersion != nil {
					return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "configmaps"}, "dep", errors.New("stale"))
				}
				return false, nil, nil
			})
			gc := New(Config{Metadata: client, Mapper: newStaticMapper()})
			defer gc.graphChanges.ShutDown()
			defer gc.attemptToDelete.ShutDown()
			defer gc.attemptToOrphan.ShutDown()
			ref := objectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "dep", UID: dep.UID}
			err := gc.deleteObject(context.Background(), ref, "6", tc.judged, metav1.DeletePropagationBackground)
			if (err != nil) != tc.wantErr {
				t.Fatalf("deleteObject: %v, want error %v", err, tc.wantErr)
			}
			deletes := 0
			for _, a := range client.Actions() {
				if a.GetVerb() == "delete" {
					deletes++
				}
			}
			if deletes != tc.wantDeletes {
				t.Fatalf("%d deletes, want %d", deletes, tc.wantDeletes)
			}
		})
	}
}
