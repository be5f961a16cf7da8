// Package endpoints is kube-controller-manager's endpoints controller:
// for every Service with a selector it keeps an Endpoints object of the
// same name listing the matching Pods — ready ones as addresses, others
// as notReadyAddresses unless the Service publishes not-ready addresses —
// with each Service port resolved against the Pods' container ports, and
// deletes it when the Service goes. Services without a selector are left
// alone: their Endpoints are written by someone else.
package endpoints

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/util/workqueue"

	"github.com/kapi-dev/kapi/internal/controllers/endpointutil"
	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// Controller keeps the Endpoints of selector Services.
type Controller struct {
	client    kubernetes.Interface
	services  corelisters.ServiceLister
	pods      corelisters.PodLister
	endpoints corelisters.EndpointsLister
	synced    []cache.InformerSynced
	queue     workqueue.TypedRateLimitingInterface[string]
	recorder  events.EventRecorder
	logger    *slog.Logger

	triggerTimes *endpointutil.TriggerTimeTracker
	// stale holds, per Service, the resourceVersion of the Endpoints this
	// controller last replaced: seeing it again in the cache means the
	// cache is behind the controller's own write.
	staleMu sync.Mutex
	stale   map[string]string
}

// New returns the controller over the shared informers; recorder may be
// nil.
func New(client kubernetes.Interface, pods coreinformers.PodInformer, services coreinformers.ServiceInformer, endpoints coreinformers.EndpointsInformer, recorder events.EventRecorder, logger *slog.Logger) (*Controller, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if recorder == nil {
		recorder = &events.FakeRecorder{}
	}
	c := &Controller{
		client: client, services: services.Lister(), pods: pods.Lister(), endpoints: endpoints.Lister(),
		synced:       []cache.InformerSynced{pods.Informer().HasSynced, services.Informer().HasSynced, endpoints.Informer().HasSynced},
		queue:        worker.NewQueue("endpoint"),
		recorder:     recorder,
		logger:       logger,
		triggerTimes: endpointutil.NewTriggerTimeTracker(),
		stale:        map[string]string{},
	}
	// Endpoints someone deleted are rebuilt.
	rebuild := endpointutil.ServiceHandler(c.queue.Add)
	rebuild.AddFunc, rebuild.UpdateFunc = nil, nil
	for informer, h := range map[cache.SharedIndexInformer]cache.ResourceEventHandler{
		services.Informer():  endpointutil.ServiceHandler(c.queue.Add),
		pods.Informer():      endpointutil.PodHandler(c.services, c.queue.Add, logger),
		endpoints.Informer(): rebuild,
	} {
		if _, err := informer.AddEventHandler(h); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Run waits for the caches, queues every Endpoints once (to delete those
// whose Service went while no controller ran), then syncs until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer c.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return
	}
	c.queueLeftovers()
	worker.Run(ctx, c.queue, workers, c.logger, c.sync)
}

func (c *Controller) queueLeftovers() {
	list, err := c.endpoints.List(labels.Everything())
	if err != nil {
		c.logger.Info("listing endpoints; orphans are not cleaned up", "err", err)
		return
	}
	for _, ep := range list {
		// A leader-election record kept in Endpoints has no Service.
		if _, ok := ep.Annotations[resourcelock.LeaderElectionRecordAnnotationKey]; ok {
			continue
		}
		c.queue.Add(ep.Namespace + "/" + ep.Name)
	}
}

// sync makes the Endpoints of the Service named key what its Pods say.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	svc, err := c.services.Services(ns).Get(name)
	if apierrors.IsNotFound(err) {
		err = c.client.CoreV1().Endpoints(ns).Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		c.triggerTimes.Delete(ns, name)
		c.setStale(key, "")
		return nil
	}
	if err != nil {
		return err
	}
	// ExternalName Services and Services without a selector get no
	// endpoints from this controller.
	if svc.Spec.Type == corev1.ServiceTypeExternalName || svc.Spec.Selector == nil {
		return nil
	}
	pods, err := c.pods.Pods(ns).List(labels.SelectorFromValidatedSet(svc.Spec.Selector))
	if err != nil {
		return err
	}
	// Computed on every sync so the tracker follows even a no-op.
	trigger := c.triggerTimes.Compute(svc, pods)
	subsets := desiredSubsets(svc, pods)

	current, err := c.endpoints.Endpoints(ns).Get(name)
	switch {
	case apierrors.IsNotFound(err):
		current = &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	case err != nil:
		return err
	case c.isStale(key, current.ResourceVersion):
		return fmt.Errorf("endpoints informer cache is out of date: resource version %s already processed for %s", current.ResourceVersion, key)
	}
	create := current.ResourceVersion == ""
	if !create && upToDate(current, svc, subsets) {
		return nil
	}
	want := current.DeepCopy()
	want.Subsets = subsets
	want.Labels = desiredLabels(svc)
	if want.Annotations == nil {
		want.Annotations = map[string]string{}
	}
	endpointutil.TriggerTimeAnnotation(want.Annotations, trigger)
	if truncate(want) {
		want.Annotations[corev1.EndpointsOverCapacity] = truncatedValue
	} else {
		delete(want.Annotations, corev1.EndpointsOverCapacity)
	}
	return c.write(ctx, svc, current, want, create)
}

func (c *Controller) write(ctx context.Context, svc *corev1.Service, current, want *corev1.Endpoints, create bool) error {
	client := c.client.CoreV1().Endpoints(svc.Namespace)
	if create {
		_, err := client.Create(ctx, want, metav1.CreateOptions{})
		if err == nil {
			return nil
		}
		// A terminating namespace refuses creates for good.
		if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			return nil
		}
		c.recorder.Eventf(svc, nil, corev1.EventTypeWarning, "FailedToCreateEndpoint", "CreateEndpoint",
			"Failed to create endpoint for service %v/%v: %v", svc.Namespace, svc.Name, err)
		return err
	}
	updated, err := client.Update(ctx, want, metav1.UpdateOptions{})
	if err != nil {
		c.recorder.Eventf(svc, nil, corev1.EventTypeWarning, "FailedToUpdateEndpoint", "UpdateEndpoint",
			"Failed to update endpoint %v/%v: %v", svc.Namespace, svc.Name, err)
		return err
	}
	if updated.ResourceVersion != current.ResourceVersion {
		c.setStale(svc.Namespace+"/"+svc.Name, current.ResourceVersion)
	}
	return nil
}

func (c *Controller) isStale(key, rv string) bool {
	c.staleMu.Lock()
	defer c.staleMu.Unlock()
	return rv != "" && c.stale[key] == rv
}

func (c *Controller) setStale(key, rv string) {
	c.staleMu.Lock()
	defer c.staleMu.Unlock()
	if rv == "" {
		delete(c.stale, key)
		return
	}
	c.stale[key] = rv
}
