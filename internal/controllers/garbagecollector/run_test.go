package garbagecollector

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/metadata/metadatainformer"
)

// TestRun runs the whole collector over fake clients: it follows what
// discovery lists (not events, not resources without watch), deletes a
// dependent whose owner is absent, and stops every goroutine when its
// context ends (TestMain checks).
func TestRun(t *testing.T) {
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	owner := cm("ns", "owner")
	client := metadatafake.NewSimpleMetadataClient(scheme, stored(cm("ns", "dep", owns(owner, false))))
	disc := staticDiscovery{{
		GroupVersion: "v1",
		APIResources: []metav1.APIResource{
			{Name: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: []string{"create", "delete", "get", "list", "patch", "watch"}},
			{Name: "events", Kind: "Event", Namespaced: true, Verbs: []string{"create", "delete", "get", "list", "watch"}},
			{Name: "bindings", Kind: "Binding", Namespaced: true, Verbs: []string{"create"}},
		},
	}}
	informers := metadatainformer.NewSharedInformerFactory(client, 0)
	gc := New(Config{Metadata: client, Informers: informers, Discovery: disc, Mapper: newStaticMapper(), Workers: 2})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		gc.Run(ctx)
		informers.Shutdown()
	}()
	defer func() {
		cancel()
		<-done
	}()
	cms := client.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("ns")
	err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := cms.Get(ctx, "dep", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("the dependent of an absent owner was not deleted: %v", err)
	}
	gc.monitorLock.Lock()
	var followed []string
	for gvr := range gc.monitors {
		followed = append(followed, gvr.Resource)
	}
	gc.monitorLock.Unlock()
	if len(followed) != 1 || followed[0] != "configmaps" {
		t.Fatalf("followed %v, want only configmaps", followed)
	}
}

// TestResyncFollowsDiscovery: a resource that leaves discovery (its CRD
// deleted) loses its handler and one that appears gets one, at the next
// resync.
func TestResyncFollowsDiscovery(t *testing.T) {
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	client := metadatafake.NewSimpleMetadataClient(scheme)
	resource := func(name, kind string) metav1.APIResource {
		return metav1.APIResource{Name: name, Kind: kind, Namespaced: true, Verbs: []string{"delete", "list", "watch"}}
	}
	informers := metadatainformer.NewSharedInformerFactory(client, 0)
	gc := New(Config{Metadata: client, Informers: informers, Mapper: newStaticMapper()})
	ctx, cancel := context.WithCancel(context.Background())
	defer func() {
		cancel()
		informers.Shutdown()
	}()
	followed := func() []string {
		gc.monitorLock.Lock()
		defer gc.monitorLock.Unlock()
		var out []string
		for gvr := range gc.monitors {
			out = append(out, gvr.Resource)
		}
		slices.Sort(out)
		return out
	}
	var current map[schema.GroupVersionResource]schema.GroupVersionKind
	for _, step := range []struct {
		lists []metav1.APIResource
		want  []string
	}{
		{[]metav1.APIResource{resource("configmaps", "ConfigMap"), resource("widgets", "Widget")}, []string{"configmaps", "widgets"}},
		{[]metav1.APIResource{resource("configmaps", "ConfigMap")}, []string{"configmaps"}},
		{[]metav1.APIResource{resource("configmaps", "ConfigMap"), resource("gadgets", "Gadget")}, []string{"configmaps", "gadgets"}},
	} {
		gc.discovery = staticDiscovery{{GroupVersion: "v1", APIResources: step.lists}}
		current = gc.resync(ctx, current)
		if got := followed(); !slices.Equal(got, step.want) {
			t.Fatalf("followed %v, want %v", got, step.want)
		}
		if len(current) != len(step.want) {
			t.Fatalf("resync returned %v, want %v", current, step.want)
		}
	}
}

// staticDiscovery answers discovery with fixed lists.
type staticDiscovery []*metav1.APIResourceList

func (d staticDiscovery) ServerResourcesForGroupVersion(gv string) (*metav1.APIResourceList, error) {
	for _, l := range d {
		if l.GroupVersion == gv {
			return l, nil
		}
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{}, gv)
}

func (d staticDiscovery) ServerGroupsAndResources() ([]*metav1.APIGroup, []*metav1.APIResourceList, error) {
	return nil, d, nil
}

func (d staticDiscovery) ServerPreferredResources() ([]*metav1.APIResourceList, error) { return d, nil }

func (d staticDiscovery) ServerPreferredNamespacedResources() ([]*metav1.APIResourceList, error) {
	return d, nil
}

// contextDiscovery is a discovery client whose every answer waits until
// its context ends, like a request sleeping through a Retry-After; the
// form without a context must not be used.
type contextDiscovery struct {
	staticDiscovery
	t *testing.T
}

func (d contextDiscovery) ServerPreferredResources() ([]*metav1.APIResourceList, error) {
	d.t.Error("discovery was asked without a context: it cannot stop with the collector")
	return nil, nil
}

func (d contextDiscovery) ServerPreferredResourcesWithContext(ctx context.Context) ([]*metav1.APIResourceList, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestDiscoveryStopsWithTheCollector: the collector's discovery takes its
// context, so a discovery request waiting to retry ends with it (a
// stopped test server left one sleeping, which the goroutine-leak check
// of kapitest reported).
func TestDiscoveryStopsWithTheCollector(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := deletableResources(ctx, contextDiscovery{t: t}); !errors.Is(err, context.Canceled) {
		t.Errorf("deletableResources after the end: %v, want context.Canceled", err)
	}
}
