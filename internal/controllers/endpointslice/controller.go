// Package endpointslice is kube-controller-manager's endpointslice
// controller: for every Service with a selector it keeps
// discovery.k8s.io/v1 EndpointSlices (owned by the Service, labelled
// kubernetes.io/service-name and endpointslice.kubernetes.io/managed-by)
// listing the matching Pods with ready/serving/terminating conditions,
// node and zone, one address type per IP family of the Service, at most
// --max-endpoints-per-slice endpoints per slice, and changes as few
// slices as it can when Pods come, go or change. The slices of a deleted
// Service go with it through the garbage collector (owner reference).
package endpointslice

import (
	"context"
	"errors"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"
	discoveryinformers "k8s.io/client-go/informers/discovery/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	discoverylisters "k8s.io/client-go/listers/discovery/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"

	"github.com/kapi-dev/kapi/internal/controllers/endpointutil"
	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

const (
	// ControllerName is the managed-by label value of this controller's
	// slices.
	ControllerName = "endpointslice-controller.k8s.io"
	// DefaultMaxEndpointsPerSlice is --max-endpoints-per-slice's default.
	DefaultMaxEndpointsPerSlice = 100
	// sliceChangeDelay batches syncs caused by slice changes (upstream's
	// endpointSliceChangeMinSyncDelay).
	sliceChangeDelay = time.Second
)

// Controller keeps the EndpointSlices of selector Services.
type Controller struct {
	services     corelisters.ServiceLister
	pods         corelisters.PodLister
	slices       discoverylisters.EndpointSliceLister
	synced       []cache.InformerSynced
	queue        workqueue.TypedRateLimitingInterface[string]
	recorder     events.EventRecorder
	logger       *slog.Logger
	triggerTimes *endpointutil.TriggerTimeTracker
	tracker      *endpointutil.SliceTracker
	reconciler   *reconciler
}

// New returns the controller over the shared informers; maxPerSlice <= 0
// is the default; recorder and logger may be nil.
func New(client kubernetes.Interface, pods coreinformers.PodInformer, services coreinformers.ServiceInformer, nodes coreinformers.NodeInformer,
	slices discoveryinformers.EndpointSliceInformer, maxPerSlice int, recorder events.EventRecorder, logger *slog.Logger) (*Controller, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if recorder == nil {
		recorder = &events.FakeRecorder{}
	}
	if maxPerSlice <= 0 {
		maxPerSlice = DefaultMaxEndpointsPerSlice
	}
	tracker := endpointutil.NewSliceTracker()
	c := &Controller{
		services: services.Lister(), pods: pods.Lister(), slices: slices.Lister(),
		synced: []cache.InformerSynced{pods.Informer().HasSynced, services.Informer().HasSynced,
			slices.Informer().HasSynced, nodes.Informer().HasSynced},
		queue:        worker.NewQueue("endpoint_slice"),
		recorder:     recorder,
		logger:       logger,
		triggerTimes: endpointutil.NewTriggerTimeTracker(),
		tracker:      tracker,
		reconciler:   &reconciler{client: client, nodes: nodes.Lister(), maxPerSlice: maxPerSlice, tracker: tracker},
	}
	// Slice changes are batched: a burst of them costs one sync.
	queueLater := func(key string) { c.queue.AddAfter(key, sliceChangeDelay) }
	for informer, h := range map[cache.SharedIndexInformer]cache.ResourceEventHandler{
		services.Informer(): endpointutil.ServiceHandler(c.queue.Add),
		pods.Informer():     endpointutil.PodHandler(c.services, c.queue.Add, logger),
		slices.Informer():   endpointutil.SliceHandler(ControllerName, tracker, queueLater),
	} {
		if _, err := informer.AddEventHandler(h); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Run waits for the caches, then syncs until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.RunSynced(ctx, c.queue, workers, c.logger, c.synced, c.sync)
}

// sync reconciles the slices of the Service named key.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	svc, err := c.services.Services(ns).Get(name)
	if apierrors.IsNotFound(err) {
		// The garbage collector deletes the slices with their owner.
		c.triggerTimes.Delete(ns, name)
		c.tracker.DeleteService(ns, name)
		return nil
	}
	if err != nil {
		return err
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName || svc.Spec.Selector == nil {
		return nil
	}
	pods, err := c.pods.Pods(ns).List(labels.SelectorFromValidatedSet(svc.Spec.Selector))
	if err != nil {
		return err
	}
	mine, err := c.slices.EndpointSlices(ns).List(labels.SelectorFromValidatedSet(map[string]string{
		discoveryv1.LabelServiceName: name, discoveryv1.LabelManagedBy: ControllerName,
	}))
	if err != nil {
		return err
	}
	// Slices being deleted are as good as gone.
	live := mine[:0:0]
	for _, s := range mine {
		if s.DeletionTimestamp == nil {
			live = append(live, s)
		}
	}
	if c.tracker.Stale(ns, name, live) {
		return errStaleCache
	}
	trigger := c.triggerTimes.Compute(svc, pods)
	if err := c.reconciler.reconcile(ctx, svc, pods, live, trigger); err != nil {
		c.recorder.Eventf(svc, nil, corev1.EventTypeWarning, "FailedToUpdateEndpointSlices", "UpdateEndpointSlices",
			"Error updating Endpoint Slices for Service %s/%s: %v", svc.Namespace, svc.Name, err)
		return err
	}
	return nil
}

// errStaleCache: the cache misses this controller's own writes; the
// Service is retried once it caught up.
var errStaleCache = errors.New("EndpointSlice informer cache is out of date")
