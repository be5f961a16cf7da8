package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/cache"
)

// monitor follows one resource: an informer of the shared typed or
// metadata-only factory and this collector's handler on it.
type monitor struct {
	gvk          schema.GroupVersionKind
	informer     cache.SharedIndexInformer
	registration cache.ResourceEventHandlerRegistration
}

// resyncRetry is how soon a failed monitor sync is tried again.
const resyncRetry = 100 * time.Millisecond

// deletableResources are the resources discovery lists with list, watch
// and delete, in their preferred version, with their kinds. A partial
// answer comes with the groups that failed. A discovery client that takes
// a context stops with ctx: a request it retries sleeps through
// Retry-After otherwise, past the collector's end.
func deletableResources(ctx context.Context, dc discovery.ServerResourcesInterface) (map[schema.GroupVersionResource]schema.GroupVersionKind, error) {
	var lists []*metav1.APIResourceList
	var err error
	if withCtx, ok := dc.(interface {
		ServerPreferredResourcesWithContext(context.Context) ([]*metav1.APIResourceList, error)
	}); ok {
		lists, err = withCtx.ServerPreferredResourcesWithContext(ctx)
	} else {
		lists, err = dc.ServerPreferredResources()
	}
	lists = discovery.FilteredBy(discovery.SupportsAllVerbs{Verbs: []string{"delete", "list", "watch"}}, lists)
	out := map[schema.GroupVersionResource]schema.GroupVersionKind{}
	for _, list := range lists {
		gv, perr := schema.ParseGroupVersion(list.GroupVersion)
		if perr != nil {
			continue
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			out[gv.WithResource(r.Name)] = gv.WithKind(r.Kind)
		}
	}
	return out, err
}

// syncLoop reads discovery at once, then every period and whenever a
// CustomResourceDefinition or APIService changes, and follows what it
// lists.
func (gc *GarbageCollector) syncLoop(ctx context.Context) {
	var current map[schema.GroupVersionResource]schema.GroupVersionKind
	for {
		current = gc.resync(ctx, current)
		select {
		case <-ctx.Done():
			return
		case <-gc.clock.After(gc.period):
		case <-gc.resyncNow:
		}
	}
}

// requestResync asks the sync loop to read discovery now.
func (gc *GarbageCollector) requestResync() {
	select {
	case gc.resyncNow <- struct{}{}:
	default:
	}
}

// resync follows the resources discovery lists now, if they changed
// since old, with the workers paused until every informer has listed
// (or the period passed: then it reads discovery again). It returns what
// it now follows.
func (gc *GarbageCollector) resync(ctx context.Context, old map[schema.GroupVersionResource]schema.GroupVersionKind) map[schema.GroupVersionResource]schema.GroupVersionKind {
	resources, err := gc.discover(ctx, old)
	if len(resources) == 0 {
		gc.logger.Info("discovery listed no resources; garbage collector sync skipped", "err", err)
		return old
	}
	if maps.Equal(old, resources) {
		return old
	}
	gc.workerLock.Lock()
	defer gc.workerLock.Unlock()
	for attempt := 1; ctx.Err() == nil; attempt++ {
		if attempt > 1 {
			if again, _ := gc.discover(ctx, old); len(again) > 0 {
				resources = again
			}
		}
		gc.mapper.Reset()
		if err := gc.syncMonitors(ctx, resources); err != nil {
			gc.logger.Info("garbage collector monitors not synced", "attempt", attempt, "err", err)
			gc.sleep(ctx, resyncRetry)
			continue
		}
		if gc.waitSynced(ctx, gc.period) {
			gc.logger.Debug("garbage collector synced", "resources", len(resources))
			return resources
		}
		gc.logger.Info("garbage collector informers did not sync in time", "attempt", attempt)
	}
	return old
}

// discover lists the deletable resources; on a partial failure the
// resources of the groups that failed and were followed stay followed.
func (gc *GarbageCollector) discover(ctx context.Context, old map[schema.GroupVersionResource]schema.GroupVersionKind) (map[schema.GroupVersionResource]schema.GroupVersionKind, error) {
	resources, err := deletableResources(ctx, gc.discovery)
	var failed *discovery.ErrGroupDiscoveryFailed
	if errors.As(err, &failed) {
		for gvr, gvk := range old {
			if _, ok := failed.Groups[gvr.GroupVersion()]; ok {
				resources[gvr] = gvk
			}
		}
	}
	for gvr := range resources {
		if _, ok := gc.ignored[gvr.GroupResource()]; ok {
			delete(resources, gvr)
		}
	}
	return resources, err
}

func (gc *GarbageCollector) sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-gc.clock.After(d):
	}
}

// waitSynced waits until every monitor's informer and handler have seen
// the initial list, at most timeout.
func (gc *GarbageCollector) waitSynced(ctx context.Context, timeout time.Duration) bool {
	deadline := gc.clock.After(timeout)
	ticker := gc.clock.NewTicker(10 * time.Millisecond)
	defer ticker.Stop()
	for {
		if gc.Synced() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-deadline:
			return false
		case <-ticker.C():
		}
	}
}

func (gc *GarbageCollector) monitorsSyncedLocked() bool {
	if len(gc.monitors) == 0 {
		return false
	}
	for _, m := range gc.monitors {
		if !m.informer.HasSynced() || !m.registration.HasSynced() {
			return false
		}
	}
	return true
}

// syncMonitors follows exactly resources: new ones get a handler on the
// factory's informer (started here), gone ones lose theirs. The shared
// factory cannot stop one informer; a removed resource's informer idles
// (its list fails) until the factory shuts down.
func (gc *GarbageCollector) syncMonitors(ctx context.Context, resources map[schema.GroupVersionResource]schema.GroupVersionKind) error {
	gc.monitorLock.Lock()
	defer gc.monitorLock.Unlock()
	var errs []error
	for gvr, m := range gc.monitors {
		if gvk, ok := resources[gvr]; ok && gvk == m.gvk {
			continue
		}
		if err := m.informer.RemoveEventHandler(m.registration); err != nil {
			errs = append(errs, err)
		}
		delete(gc.monitors, gvr)
	}
	for gvr, gvk := range resources {
		if _, ok := gc.monitors[gvr]; ok {
			continue
		}
		informer := gc.informerFor(gvr)
		reg, err := informer.AddEventHandler(gc.handlers(gvr, gvk))
		if err != nil {
			errs = append(errs, fmt.Errorf("following %s: %w", gvr, err))
			continue
		}
		gc.monitors[gvr] = &monitor{gvk: gvk, informer: informer, registration: reg}
	}
	gc.startInformers(ctx)
	return errors.Join(errs...)
}

// removeMonitors drops every handler when the collector stops.
func (gc *GarbageCollector) removeMonitors() {
	gc.monitorLock.Lock()
	defer gc.monitorLock.Unlock()
	for gvr, m := range gc.monitors {
		_ = m.informer.RemoveEventHandler(m.registration)
		delete(gc.monitors, gvr)
	}
}

// triggersResync: a change of these may change what discovery lists.
var triggersResync = map[schema.GroupResource]bool{
	{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}: true,
	{Group: "apiregistration.k8s.io", Resource: "apiservices"}:             true,
}

// handlers turn one resource's informer events into graph changes.
func (gc *GarbageCollector) handlers(gvr schema.GroupVersionResource, gvk schema.GroupVersionKind) cache.ResourceEventHandler {
	resync := triggersResync[gvr.GroupResource()]
	push := func(t eventType, obj, old any) {
		o, ok := metaObject(obj)
		if !ok {
			return
		}
		e := &event{eventType: t, obj: o, gvk: gvk}
		if old != nil {
			e.oldObj, _ = metaObject(old)
		}
		gc.graphChanges.Add(e)
		if resync {
			gc.requestResync()
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { push(addEvent, obj, nil) },
		UpdateFunc: func(old, obj any) { push(updateEvent, obj, old) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			push(deleteEvent, obj, nil)
		},
	}
}

func metaObject(obj any) (metav1.Object, bool) {
	o, ok := obj.(metav1.Object)
	return o, ok
}

// cached is ref's object from its resource's informer, if followed and
// there with the same uid. It is shared: callers only read it.
func (gc *GarbageCollector) cached(ref objectReference) (*metav1.PartialObjectMetadata, bool) {
	gvr, _, err := gc.apiResource(ref.APIVersion, ref.Kind)
	if err != nil {
		return nil, false
	}
	gc.monitorLock.Lock()
	m, ok := gc.monitors[gvr]
	gc.monitorLock.Unlock()
	if !ok {
		return nil, false
	}
	key := ref.Name
	if ref.Namespace != "" {
		key = ref.Namespace + "/" + ref.Name
	}
	obj, exists, err := m.informer.GetStore().GetByKey(key)
	if err != nil || !exists {
		return nil, false
	}
	pom, ok := asPartial(obj)
	if !ok || pom.UID != ref.UID {
		return nil, false
	}
	return pom, true
}
