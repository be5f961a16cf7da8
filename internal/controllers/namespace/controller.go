// Package namespace is the namespace deletion controller: when a namespace
// is marked for deletion it deletes everything in it — every namespaced
// resource discovery lists at that moment, built-in or custom — reports
// what remains in the namespace's conditions, and removes the
// "kubernetes" finalizer, upon which the registry deletes the namespace.
// kube-apiserver leaves this to kube-controller-manager; kapi runs it
// in-process (over its loopback client) so it is useful alone.
package namespace

import (
	"context"
	"errors"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// workers is how many namespaces are emptied at once.
const workers = 4

// Config is what the controller works with.
type Config struct {
	// Client reads and finalizes namespaces and lists pods.
	Client kubernetes.Interface
	// Namespaces is the shared namespace informer that tells the
	// controller of terminating namespaces; whoever owns its factory
	// starts it.
	Namespaces coreinformers.NamespaceInformer
	// Metadata lists and deletes objects of any resource.
	Metadata metadata.Interface
	// Discover returns the namespaced resources served now, e.g. a
	// discovery client's ServerPreferredNamespacedResourcesWithContext;
	// it ends when ctx does (a retried request sleeps otherwise).
	Discover func(ctx context.Context) ([]*metav1.APIResourceList, error)
	Logger   *slog.Logger
	// MinRetry and MaxRetry bound the backoff of a namespace whose
	// content is not gone yet (defaults 50ms and 60s); while objects wait
	// for their finalizers the delay never exceeds upstream's interval.
	MinRetry, MaxRetry time.Duration
}

// Controller empties and finalizes terminating namespaces.
type Controller struct {
	client   kubernetes.Interface
	informer cache.SharedIndexInformer
	metadata metadata.Interface
	discover func(context.Context) ([]*metav1.APIResourceList, error)
	logger   *slog.Logger
	queue    workqueue.TypedDelayingInterface[string]
	// backoff grows per namespace while its deletion does not finish.
	backoff workqueue.TypedRateLimiter[string]
}

// New returns a controller.
func New(c Config) *Controller {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.MinRetry <= 0 {
		c.MinRetry = 50 * time.Millisecond
	}
	if c.MaxRetry <= 0 {
		c.MaxRetry = time.Minute
	}
	return &Controller{
		client: c.Client,
		// Asked for here, so that the factory started after New starts it.
		informer: c.Namespaces.Informer(),
		metadata: c.Metadata,
		discover: c.Discover,
		logger:   c.Logger,
		queue:    workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Name: "namespace"}),
		backoff:  workqueue.NewTypedItemExponentialFailureRateLimiter[string](c.MinRetry, c.MaxRetry),
	}
}

func (c *Controller) namespaces() corev1client.NamespaceInterface {
	return c.client.CoreV1().Namespaces()
}

// Run follows namespaces until ctx is done.
func (c *Controller) Run(ctx context.Context) {
	defer c.queue.ShutDown()
	informer := c.informer
	reg, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.observe,
		UpdateFunc: func(_, obj any) { c.observe(obj) },
	})
	if err != nil {
		c.logger.Error("namespace controller not started", "err", err)
		return
	}
	// The informer outlives the controller (a lost leader lease stops
	// only the controller).
	defer func() { _ = informer.RemoveEventHandler(reg) }()
	if !cache.WaitForCacheSync(ctx.Done(), reg.HasSynced) {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		worker.Elastic(workers, c.queue.Get, func(name string) { c.process(ctx, name) })
	}()
	<-ctx.Done()
	c.queue.ShutDown()
	<-done
}

func (c *Controller) observe(obj any) {
	if ns, ok := obj.(*corev1.Namespace); ok && ns.DeletionTimestamp != nil {
		c.queue.Add(ns.Name)
	}
}

// process works one namespace taken from the queue.
func (c *Controller) process(ctx context.Context, name string) {
	defer c.queue.Done(name)
	err := c.sync(ctx, name)
	if err == nil || ctx.Err() != nil {
		c.backoff.Forget(name)
		return
	}
	delay := c.backoff.When(name)
	var remaining *remainingError
	if errors.As(err, &remaining) {
		// Upstream looks again after half the estimate; kapi starts
		// sooner, because its own clients' finalizers are often quick.
		delay = min(delay, time.Duration(remaining.estimate/2+1)*time.Second)
		c.logger.Debug("content remains in the namespace", "namespace", name, "retry", delay)
	} else {
		c.logger.Info("namespace deletion failed", "namespace", name, "err", err, "retry", delay)
	}
	c.queue.AddAfter(name, delay)
}
