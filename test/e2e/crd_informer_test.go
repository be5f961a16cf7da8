package e2e

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// gadgetCRD is a second CRD, created after the informer factory has
// started.
const gadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              mode: {type: string}
`

// crEvent is one informer notification, reduced to what the test checks.
type crEvent struct {
	verb, namespace, name, resourceVersion string
	spec                                   string
}

func (e crEvent) String() string {
	return fmt.Sprintf("%s %s/%s rv=%s spec=%s", e.verb, e.namespace, e.name, e.resourceVersion, e.spec)
}

// recordCREvents sends every event of inf to a channel, in order.
func recordCREvents(t *testing.T, inf cache.SharedIndexInformer) <-chan crEvent {
	t.Helper()
	events := make(chan crEvent, 100)
	toEvent := func(verb string, obj any) crEvent {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return crEvent{verb: verb, name: fmt.Sprintf("<%T>", obj)}
		}
		spec, _, _ := unstructured.NestedMap(u.Object, "spec")
		return crEvent{verb, u.GetNamespace(), u.GetName(), u.GetResourceVersion(), fmt.Sprint(spec)}
	}
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { events <- toEvent("add", obj) },
		UpdateFunc: func(_, obj any) { events <- toEvent("update", obj) },
		DeleteFunc: func(obj any) { events <- toEvent("delete", obj) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// nextEvent fails unless the very next event is want: informers deliver
// a resource's events in order, with nothing in between here. An empty
// want.resourceVersion matches any.
func nextEvent(t *testing.T, ctx context.Context, events <-chan crEvent, want crEvent) {
	t.Helper()
	select {
	case got := <-events:
		if want.resourceVersion == "" {
			got.resourceVersion = ""
		}
		if got != want {
			t.Fatalf("informer event:\n got  %v\n want %v", got, want)
		}
	case <-ctx.Done():
		t.Fatalf("informer never delivered %v", want)
	}
}

// TestCRDDynamicInformer runs a client-go dynamic informer factory on a
// custom resource: it sees add, update and delete in order with the
// objects the server returned, and a CRD created after the factory started
// gets a working informer too.
func TestCRDDynamicInformer(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	ctx, cancel := context.WithTimeout(t.Context(), crdWait)
	defer cancel()
	createNamespace(t, k.Clientset(), "informed")
	applyCRD(t, k, widgetCRD, "widgets.example.com")

	dc := dynamicFor(t, k, nil)
	widgets := gvr("example.com", "v1", "widgets")
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dc, 0, "informed", nil)
	events := recordCREvents(t, factory.ForResource(widgets).Informer())
	factory.Start(ctx.Done())
	// Shutdown waits for the informers, which stop when ctx ends.
	defer func() { cancel(); factory.Shutdown() }()
	for gvr, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("informer for %v never synced", gvr)
		}
	}

	client := dc.Resource(widgets).Namespace("informed")
	created, err := client.Create(ctx, newCR("example.com/v1", "Widget", "w1", map[string]any{"size": int64(1)}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nextEvent(t, ctx, events, crEvent{"add", "informed", "w1", created.GetResourceVersion(), "map[color:red size:1]"})

	if err := unstructured.SetNestedField(created.Object, int64(2), "spec", "size"); err != nil {
		t.Fatal(err)
	}
	updated, err := client.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if updated.GetGeneration() != 2 {
		t.Errorf("generation after a spec update = %d, want 2", updated.GetGeneration())
	}
	nextEvent(t, ctx, events, crEvent{"update", "informed", "w1", updated.GetResourceVersion(), "map[color:red size:2]"})

	if err := client.Delete(ctx, "w1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The delete event carries the last state of the object; its
	// resourceVersion is the deletion's.
	nextEvent(t, ctx, events, crEvent{"delete", "informed", "w1", "", "map[color:red size:2]"})
	if objs, err := factory.ForResource(widgets).Lister().List(labels.Everything()); err != nil || len(objs) != 0 {
		t.Errorf("lister after delete: %d objects, err %v", len(objs), err)
	}

	// A resource that did not exist when the factory started.
	applyCRD(t, k, gadgetCRD, "gadgets.example.com")
	gadgets := gvr("example.com", "v1", "gadgets")
	gadgetEvents := recordCREvents(t, factory.ForResource(gadgets).Informer())
	factory.Start(ctx.Done())
	for gvr, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("informer for %v never synced", gvr)
		}
	}
	g, err := dc.Resource(gadgets).Namespace("informed").Create(ctx, newCR("example.com/v1", "Gadget", "g1", map[string]any{"mode": "on"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nextEvent(t, ctx, gadgetEvents, crEvent{"add", "informed", "g1", g.GetResourceVersion(), "map[mode:on]"})
}
