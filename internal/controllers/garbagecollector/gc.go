// Package garbagecollector is kube-controller-manager's garbage collector
// for kapi: it follows every resource that can be listed, watched and
// deleted (found through discovery, built-in and custom, re-read every
// sync period and whenever a CustomResourceDefinition or an APIService
// changes) with informers (the shared typed ones for built-in resources
// when given, metadata-only ones otherwise), keeps a graph of
// ownerReferences (uid → owners and dependents), and acts on it as upstream does:
// dependents whose owners are all gone are deleted (background
// propagation), an owner with the "foregroundDeletion" finalizer waits for
// its blocking dependents before the finalizer is removed, an owner with
// the "orphan" finalizer has its references removed from its dependents,
// and references to absent owners, or to owners in another namespace, are
// removed or their dependent deleted after a live lookup.
package garbagecollector

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"k8s.io/utils/lru"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// absentOwnerCacheSize is how many owners confirmed absent are remembered,
// so that their many dependents do not each look them up (upstream's size).
const absentOwnerCacheSize = 500

// DefaultSyncPeriod is how often discovery is read again (upstream's).
const DefaultSyncPeriod = 30 * time.Second

// DefaultIgnoredResources are never followed: events name objects but are
// not owned by them (upstream's list).
func DefaultIgnoredResources() map[schema.GroupResource]struct{} {
	return map[schema.GroupResource]struct{}{
		{Group: "", Resource: "events"}:              {},
		{Group: "events.k8s.io", Resource: "events"}: {},
	}
}

// Config is what the collector works with.
type Config struct {
	// Metadata reads, patches and deletes objects of any resource.
	Metadata metadata.Interface
	// Informers is the metadata-only informer factory the collector asks
	// for one informer per resource. Run starts it; whoever built it shuts
	// it down after Run returns.
	Informers metadatainformer.SharedInformerFactory
	// Typed, when set, is the typed informer factory other controllers
	// share: built-in resources are followed with its informers (its
	// owner starts them through Start and shuts them down), as
	// kube-controller-manager does, instead of a second watch each.
	Typed TypedInformers
	// Discovery lists the resources served.
	Discovery discovery.ServerResourcesInterface
	// Mapper maps an owner reference's kind to its resource; it is reset
	// whenever discovery changes (a DeferredDiscoveryRESTMapper).
	Mapper meta.ResettableRESTMapper
	// Recorder records the OwnerRefInvalidNamespace events.
	Recorder record.EventRecorder
	Logger   *slog.Logger
	Clock    clock.WithTicker
	// SyncPeriod is how often discovery is read again (DefaultSyncPeriod).
	SyncPeriod time.Duration
	// Ignored resources are not followed (DefaultIgnoredResources).
	Ignored map[schema.GroupResource]struct{}
	// Workers is how many items are worked on at once (upstream's 20).
	Workers int
}

// GarbageCollector keeps the ownership graph and acts on it.
type GarbageCollector struct {
	metadata  metadata.Interface
	informers metadatainformer.SharedInformerFactory
	typed     TypedInformers
	discovery discovery.ServerResourcesInterface
	mapper    meta.ResettableRESTMapper
	recorder  record.EventRecorder
	logger    *slog.Logger
	clock     clock.WithTicker
	period    time.Duration
	ignored   map[schema.GroupResource]struct{}
	workers   int

	// mu guards the graph: nodes and every field of every node.
	mu    sync.RWMutex
	nodes map[types.UID]*node

	// graphChanges carries informer events (and virtual delete events
	// from workers) to the one goroutine that changes the graph.
	graphChanges    workqueue.TypedInterface[*event]
	attemptToDelete workqueue.TypedRateLimitingInterface[*node]
	attemptToOrphan workqueue.TypedRateLimitingInterface[*node]
	// absentOwners remembers owner references confirmed absent.
	absentOwners *lru.Cache

	// workerLock pauses the workers while the monitors are resynced, so
	// that no decision is taken on a partially filled graph.
	workerLock sync.RWMutex
	// monitorLock guards monitors.
	monitorLock sync.Mutex
	monitors    map[schema.GroupVersionResource]*monitor
	// resyncNow asks the sync loop to read discovery again at once.
	resyncNow chan struct{}
}

// New returns a collector; Run starts it.
func New(c Config) *GarbageCollector {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	if c.SyncPeriod <= 0 {
		c.SyncPeriod = DefaultSyncPeriod
	}
	if c.Ignored == nil {
		c.Ignored = DefaultIgnoredResources()
	}
	if c.Workers <= 0 {
		c.Workers = 20
	}
	return &GarbageCollector{
		metadata:     c.Metadata,
		informers:    c.Informers,
		typed:        c.Typed,
		discovery:    c.Discovery,
		mapper:       c.Mapper,
		recorder:     c.Recorder,
		logger:       c.Logger,
		clock:        c.Clock,
		period:       c.SyncPeriod,
		ignored:      c.Ignored,
		workers:      c.Workers,
		nodes:        map[types.UID]*node{},
		graphChanges: workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[*event]{Name: "garbage_collector_graph_changes"}),
		attemptToDelete: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[*node](),
			workqueue.TypedRateLimitingQueueConfig[*node]{Name: "garbage_collector_attempt_to_delete", Clock: c.Clock}),
		attemptToOrphan: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[*node](),
			workqueue.TypedRateLimitingQueueConfig[*node]{Name: "garbage_collector_attempt_to_orphan", Clock: c.Clock}),
		absentOwners: lru.New(absentOwnerCacheSize),
		monitors:     map[schema.GroupVersionResource]*monitor{},
		resyncNow:    make(chan struct{}, 1),
	}
}

// Run follows discovery and works the queues until ctx ends; it returns
// when every goroutine it started has stopped.
func (gc *GarbageCollector) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	defer gc.attemptToOrphan.ShutDown()
	defer gc.attemptToDelete.ShutDown()
	defer gc.graphChanges.ShutDown()

	wg.Go(func() {
		for gc.processGraphChange() {
		}
	})
	wg.Go(func() { gc.syncLoop(ctx) })
	wg.Go(func() {
		worker.Elastic(gc.workers, gc.attemptToDelete.Get, func(n *node) { gc.processAttemptToDelete(ctx, n) })
	})
	wg.Go(func() {
		worker.Elastic(gc.workers, gc.attemptToOrphan.Get, func(n *node) { gc.processAttemptToOrphan(ctx, n) })
	})
	<-ctx.Done()
	gc.removeMonitors()
}

// processAttemptToDelete works one item taken from attemptToDelete.
func (gc *GarbageCollector) processAttemptToDelete(ctx context.Context, n *node) {
	gc.workerLock.RLock()
	defer gc.workerLock.RUnlock()
	defer gc.attemptToDelete.Done(n)
	if gc.attemptToDeleteWorker(ctx, n) {
		gc.attemptToDelete.AddRateLimited(n)
	} else {
		gc.attemptToDelete.Forget(n)
	}
}

// processAttemptToOrphan works one item taken from attemptToOrphan.
func (gc *GarbageCollector) processAttemptToOrphan(ctx context.Context, n *node) {
	gc.workerLock.RLock()
	defer gc.workerLock.RUnlock()
	defer gc.attemptToOrphan.Done(n)
	if err := gc.orphanDependentsOf(ctx, n); err != nil {
		if ctx.Err() == nil {
			gc.logger.Info("orphaning dependents failed", "owner", gc.identityOf(n).String(), "err", err)
		}
		gc.attemptToOrphan.AddRateLimited(n)
		return
	}
	gc.attemptToOrphan.Forget(n)
}

// Synced reports whether every followed resource's informer has listed.
func (gc *GarbageCollector) Synced() bool {
	gc.monitorLock.Lock()
	defer gc.monitorLock.Unlock()
	return gc.monitorsSyncedLocked()
}
