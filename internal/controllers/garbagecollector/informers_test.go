package garbagecollector

import (
	"context"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/metadata/metadatainformer"
)

// TestSharedTypedInformers: with a typed factory, a built-in resource is
// followed with that factory's informer (the one other controllers
// share, as kube-controller-manager's collector does) and a custom one
// with a metadata-only informer; the graph and the cache lookups read
// typed objects as they read metadata.
func TestSharedTypedInformers(t *testing.T) {
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	owner := cm("ns", "owner")
	dep := &corev1.ConfigMap{ObjectMeta: *cm("ns", "dep", owns(owner, true)).ObjectMeta.DeepCopy()}
	dep.ResourceVersion = "7"
	typed := informers.NewSharedInformerFactory(fake.NewClientset(dep), 0)
	metadataInformers := metadatainformer.NewSharedInformerFactory(metadatafake.NewSimpleMetadataClient(scheme), 0)
	gc := New(Config{Informers: metadataInformers, Typed: typed, Mapper: newStaticMapper()})
	ctx, cancel := context.WithCancel(context.Background())
	defer func() {
		cancel()
		typed.Shutdown()
		metadataInformers.Shutdown()
	}()

	configMaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	widgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	resources := map[schema.GroupVersionResource]schema.GroupVersionKind{
		configMaps: configMapKind,
		widgets:    {Group: "example.com", Version: "v1", Kind: "Widget"},
	}
	if err := gc.syncMonitors(ctx, resources); err != nil {
		t.Fatal(err)
	}
	if !gc.waitSynced(ctx, 30*time.Second) {
		t.Fatal("informers did not sync")
	}
	// Each factory started the one informer it was asked for.
	done := make(chan struct{})
	close(done)
	if started := typed.WaitForCacheSync(done); len(started) != 1 || !started[reflect.TypeFor[*corev1.ConfigMap]()] {
		t.Errorf("typed factory started %v, want the ConfigMap informer only", started)
	}
	if started := metadataInformers.WaitForCacheSync(done); len(started) != 1 || !started[widgets] {
		t.Errorf("metadata factory started %v, want the widgets informer only", started)
	}
	if items := gc.monitors[configMaps].informer.GetStore().List(); len(items) != 1 || reflect.TypeOf(items[0]) != reflect.TypeFor[*corev1.ConfigMap]() {
		t.Errorf("configmaps followed with a cache of %v, want the typed ConfigMap", items)
	}

	got, ok := gc.cached(objectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "dep", UID: dep.UID})
	if !ok {
		t.Fatal("the typed ConfigMap is not found in the cache")
	}
	if got.ResourceVersion != "7" || len(got.OwnerReferences) != 1 || got.OwnerReferences[0].UID != owner.UID {
		t.Errorf("cached metadata %+v, want resourceVersion 7 and the owner reference", got.ObjectMeta)
	}
	e, shutdown := gc.graphChanges.Get()
	if shutdown || e.obj.GetUID() != dep.UID || e.eventType != addEvent {
		t.Errorf("first graph change %+v, want the typed ConfigMap added", e)
	}
	gc.graphChanges.Done(e)
}
