// Package resourcequota is the resource quota controller, as
// kube-controller-manager runs it: it keeps each ResourceQuota's
// status.hard equal to spec.hard and recomputes status.used from the
// objects of the namespace when a quota is created or its limits change,
// when an object it counts is deleted (or stops being charged), and
// periodically. Between those, the ResourceQuota admission plugin charges
// status.used as objects are admitted.
package resourcequota

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
	"github.com/kapi-dev/kapi/internal/quota"
)

// DefaultResyncPeriod is kube-controller-manager's
// --resource-quota-sync-period.
const DefaultResyncPeriod = 5 * time.Minute

// Sources gives the controller the objects of any resource.
type Sources interface {
	// ListFunc lists gr's objects by namespace; it may start watching gr
	// (and report its deletions through the controller's Replenish).
	ListFunc(ctx context.Context, gr schema.GroupResource) (quota.ListFunc, error)
	// HasSynced reports whether the sources known so far have listed
	// everything.
	HasSynced() bool
}

// Config is what the controller is built from.
type Config struct {
	Client   kubernetes.Interface
	Quotas   coreinformers.ResourceQuotaInformer
	Registry *quota.Registry
	// Sources is set with SetSources before Run when it needs the
	// controller (to report deletions).
	Sources Sources
	Clock   clock.WithTicker
	// ResyncPeriod is how often every quota is recomputed;
	// DefaultResyncPeriod when zero.
	ResyncPeriod time.Duration
	Logger       *slog.Logger
}

// Controller keeps quota status current.
type Controller struct {
	client   kubernetes.Interface
	quotas   corev1listers.ResourceQuotaLister
	synced   cache.InformerSynced
	registry *quota.Registry
	sources  Sources
	clock    clock.WithTicker
	resync   time.Duration
	logger   *slog.Logger
	queue    workqueue.TypedRateLimitingInterface[string]
}

// New builds the controller and registers its quota event handlers.
func New(c Config) (*Controller, error) {
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	if c.ResyncPeriod == 0 {
		c.ResyncPeriod = DefaultResyncPeriod
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	rc := &Controller{
		client: c.Client, quotas: c.Quotas.Lister(), synced: c.Quotas.Informer().HasSynced,
		registry: c.Registry, sources: c.Sources, clock: c.Clock, resync: c.ResyncPeriod, logger: c.Logger,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "resourcequota_primary", Clock: c.Clock}),
	}
	_, err := c.Quotas.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: rc.enqueue,
		// Only a change of limits needs a recount: admission charges
		// usage, and the controller's own writes come back here.
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*corev1.ResourceQuota)
			n, ok2 := newObj.(*corev1.ResourceQuota)
			if ok1 && ok2 && quota.Equals(o.Spec.Hard, n.Spec.Hard) && quota.Equals(n.Spec.Hard, n.Status.Hard) {
				return
			}
			rc.enqueue(newObj)
		},
	})
	return rc, err
}

// SetSources sets where objects are listed from.
func (rc *Controller) SetSources(s Sources) { rc.sources = s }

func (rc *Controller) enqueue(obj any) {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	rc.queue.Add(key)
}

// Replenish recounts the quotas of namespace that limit gr: an object of
// gr there was deleted or stopped being charged.
func (rc *Controller) Replenish(gr schema.GroupResource, namespace string) {
	if quota.Ignored(gr) {
		return
	}
	quotas, err := rc.quotas.ResourceQuotas(namespace).List(labels.Everything())
	if err != nil {
		return
	}
	e := rc.registry.Get(gr)
	for _, q := range quotas {
		if len(e.MatchingResources(quota.ResourceNames(q.Status.Hard))) > 0 {
			rc.enqueue(q)
			// The recount compares with the quota as this controller's
			// informer has it, and admission's charge of the object
			// (a status write) can reach that informer after the
			// object's deletion reached the source's: the recount then
			// finds nothing to change, and the charge's own event is
			// ignored (it changes no limit). Upstream is left to its
			// next full resync, minutes later; a second recount a
			// moment later gives the charge back once the informer has
			// caught up.
			if key, err := cache.MetaNamespaceKeyFunc(q); err == nil {
				rc.queue.AddAfter(key, replenishRecheck)
			}
		}
	}
}

// replenishRecheck is when a replenished quota is counted a second time.
const replenishRecheck = time.Second

// Run works until ctx ends.
func (rc *Controller) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrash()
	defer rc.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), rc.synced, rc.sources.HasSynced) {
		return
	}
	go worker.Elastic(workers, rc.queue.Get, func(key string) { rc.process(ctx, key) })
	ticker := rc.clock.NewTicker(rc.resync)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
			rc.enqueueAll()
		}
	}
}

func (rc *Controller) enqueueAll() {
	quotas, err := rc.quotas.List(labels.Everything())
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	for _, q := range quotas {
		rc.enqueue(q)
	}
}

// process works one key taken from the queue.
func (rc *Controller) process(ctx context.Context, key string) {
	defer rc.queue.Done(key)
	if err := rc.syncKey(ctx, key); err != nil {
		rc.logger.Debug("quota sync failed", "key", key, "err", err)
		rc.queue.AddRateLimited(key)
		return
	}
	rc.queue.Forget(key)
}

func (rc *Controller) syncKey(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	q, err := rc.quotas.ResourceQuotas(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return rc.Sync(ctx, q)
}

// Sync recomputes one quota's status and writes it when it changed. A
// resource that cannot be listed keeps its last observed usage.
func (rc *Controller) Sync(ctx context.Context, q *corev1.ResourceQuota) error {
	dirty := !quota.Equals(q.Spec.Hard, q.Status.Hard) || q.Status.Hard == nil || q.Status.Used == nil
	used := quota.Add(corev1.ResourceList{}, q.Status.Used)
	hard := quota.Add(corev1.ResourceList{}, q.Spec.Hard)
	names := quota.ResourceNames(hard)
	// Usage is measured as the status would limit it: with the new hard.
	measured := q.DeepCopy()
	measured.Status.Hard = hard
	var errs []error
	for gr, e := range rc.registry.ResourcesOf(names) {
		matched := e.MatchingResources(names)
		list, err := rc.sources.ListFunc(ctx, gr)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		stats, err := quota.UsageStats(e, measured, matched, list)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", gr, err))
			continue
		}
		for _, n := range matched {
			used[n] = stats[n]
		}
	}
	used = quota.Mask(used, names)
	dirty = dirty || !quota.Equals(used, q.Status.Used)
	if dirty {
		out := q.DeepCopy()
		out.Status = corev1.ResourceQuotaStatus{Hard: hard, Used: used}
		if _, err := rc.client.CoreV1().ResourceQuotas(q.Namespace).UpdateStatus(ctx, out, metav1.UpdateOptions{}); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
