// Package endpointslicemirroring is kube-controller-manager's
// endpointslice-mirroring controller: the Endpoints of a Service without
// a selector (written by hand or by another controller) are mirrored
// into EndpointSlices managed by endpointslicemirroring-controller.k8s.io
// and owned by the Endpoints, so that clients reading only slices see
// them too. Endpoints labelled endpointslice.kubernetes.io/skip-mirror
// (such as default/kubernetes, whose slice kapi writes itself) and
// leader-election records are not mirrored.
package endpointslicemirroring

import (
	"context"
	"errors"
	"log/slog"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"
	discoveryinformers "k8s.io/client-go/informers/discovery/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	discoverylisters "k8s.io/client-go/listers/discovery/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/util/workqueue"

	"github.com/kapi-dev/kapi/internal/controllers/endpointutil"
	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

const (
	// ControllerName is the managed-by label value of mirrored slices.
	ControllerName = "endpointslicemirroring-controller.k8s.io"
	// DefaultMaxEndpointsPerSubset is --mirroring-max-endpoints-per-subset's
	// default: a subset maps to one slice, the rest is skipped.
	DefaultMaxEndpointsPerSubset = 1000
)

// Controller mirrors Endpoints into EndpointSlices.
type Controller struct {
	client     kubernetes.Interface
	services   corelisters.ServiceLister
	endpoints  corelisters.EndpointsLister
	slices     discoverylisters.EndpointSliceLister
	synced     []cache.InformerSynced
	queue      workqueue.TypedRateLimitingInterface[string]
	tracker    *endpointutil.SliceTracker
	reconciler *reconciler
	logger     *slog.Logger
}

// New returns the controller over the shared informers; maxPerSubset <=
// 0 is the default; recorder and logger may be nil.
func New(client kubernetes.Interface, endpoints coreinformers.EndpointsInformer, services coreinformers.ServiceInformer,
	slices discoveryinformers.EndpointSliceInformer, maxPerSubset int, recorder events.EventRecorder, logger *slog.Logger) (*Controller, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if recorder == nil {
		recorder = &events.FakeRecorder{}
	}
	if maxPerSubset <= 0 {
		maxPerSubset = DefaultMaxEndpointsPerSubset
	}
	tracker := endpointutil.NewSliceTracker()
	c := &Controller{
		client: client, services: services.Lister(), endpoints: endpoints.Lister(), slices: slices.Lister(),
		synced:     []cache.InformerSynced{endpoints.Informer().HasSynced, services.Informer().HasSynced, slices.Informer().HasSynced},
		queue:      worker.NewQueue("endpoint_slice_mirroring"),
		tracker:    tracker,
		reconciler: &reconciler{client: client, maxPerSubset: maxPerSubset, tracker: tracker, recorder: recorder},
		logger:     logger,
	}
	handlers := []struct {
		informer cache.SharedIndexInformer
		funcs    cache.ResourceEventHandler
	}{
		{services.Informer(), cache.ResourceEventHandlerFuncs{AddFunc: c.serviceAdded, UpdateFunc: c.serviceUpdated, DeleteFunc: c.serviceAdded}},
		{endpoints.Informer(), cache.ResourceEventHandlerFuncs{AddFunc: c.endpointsAdded, UpdateFunc: c.endpointsUpdated, DeleteFunc: c.endpointsAdded}},
		{slices.Informer(), endpointutil.SliceHandler(ControllerName, tracker, c.queue.Add)},
	}
	for _, h := range handlers {
		if _, err := h.informer.AddEventHandler(h.funcs); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Controller) enqueue(obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		c.queue.Add(key)
	}
}

func unwrap(obj any) any {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return t.Obj
	}
	return obj
}

// serviceAdded (and deleted): only selector-less Services are mirrored.
func (c *Controller) serviceAdded(obj any) {
	if svc, ok := unwrap(obj).(*corev1.Service); ok && svc.Spec.Selector == nil {
		c.enqueue(svc)
	}
}

func (c *Controller) serviceUpdated(old, cur any) {
	prev, ok1 := old.(*corev1.Service)
	svc, ok2 := cur.(*corev1.Service)
	if ok1 && ok2 && (prev.Spec.Selector == nil) != (svc.Spec.Selector == nil) {
		c.enqueue(svc)
	}
}

// shouldMirror: not marked skip-mirror, not a leader-election record.
func shouldMirror(ep *corev1.Endpoints) bool {
	if ep == nil || ep.Labels[discoveryv1.LabelSkipMirror] == "true" {
		return false
	}
	_, leader := ep.Annotations[resourcelock.LeaderElectionRecordAnnotationKey]
	return !leader
}

func (c *Controller) endpointsAdded(obj any) {
	if ep, ok := unwrap(obj).(*corev1.Endpoints); ok && shouldMirror(ep) {
		c.enqueue(ep)
	}
}

func (c *Controller) endpointsUpdated(old, cur any) {
	prev, ok1 := old.(*corev1.Endpoints)
	ep, ok2 := cur.(*corev1.Endpoints)
	if ok1 && ok2 && (shouldMirror(prev) || shouldMirror(ep)) {
		c.enqueue(ep)
	}
}

// Run waits for the caches, then mirrors until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.RunSynced(ctx, c.queue, workers, c.logger, c.synced, c.sync)
}

// errStaleCache: the cache misses this controller's own writes.
var errStaleCache = errors.New("EndpointSlice informer cache is out of date")

// sync mirrors the Endpoints named key, or deletes its mirrored slices
// when it must not be mirrored (any more).
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	ep, err := c.endpoints.Endpoints(ns).Get(name)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if ep == nil || !shouldMirror(ep) {
		return c.deleteMirrored(ctx, ns, name)
	}
	svc, err := c.services.Services(ns).Get(name)
	if apierrors.IsNotFound(err) || (err == nil && svc.Spec.Selector != nil) {
		return c.deleteMirrored(ctx, ns, name)
	}
	if err != nil {
		return err
	}
	mirrored, err := c.mirrored(ns, name)
	if err != nil {
		return err
	}
	if c.tracker.Stale(ns, name, mirrored) {
		return errStaleCache
	}
	return c.reconciler.reconcile(ctx, ep, mirrored)
}

func (c *Controller) mirrored(ns, name string) ([]*discoveryv1.EndpointSlice, error) {
	return c.slices.EndpointSlices(ns).List(labels.SelectorFromValidatedSet(map[string]string{
		discoveryv1.LabelServiceName: name, discoveryv1.LabelManagedBy: ControllerName,
	}))
}

func (c *Controller) deleteMirrored(ctx context.Context, ns, name string) error {
	c.tracker.DeleteService(ns, name)
	mirrored, err := c.mirrored(ns, name)
	if err != nil {
		return err
	}
	var errs []error
	for _, s := range mirrored {
		if err := c.client.DiscoveryV1().EndpointSlices(ns).Delete(ctx, s.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
