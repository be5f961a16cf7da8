// Package podautoscaler is kube-controller-manager's
// horizontalpodautoscaling controller for a cluster without a metrics
// API: every sync period it reads each HorizontalPodAutoscaler's target
// through the scale subresource, keeps the replica count within
// [minReplicas, maxReplicas], and reports in status, conditions and events
// why no replica count could be computed from metrics, with upstream's
// reasons and messages. It never computes a replica count from metric
// values: when a metrics API answers with values, the metric is reported
// as unusable (see ErrMetricValuesUnused).
package podautoscaler

import (
	"context"
	"log/slog"
	"sync"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	autoscalinginformers "k8s.io/client-go/informers/autoscaling/v2"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	autoscalinglisters "k8s.io/client-go/listers/autoscaling/v2"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/scale"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// DefaultSyncPeriod is --horizontal-pod-autoscaler-sync-period's default.
const DefaultSyncPeriod = 15 * time.Second

// Component is the name events are reported under, upstream's.
const Component = "horizontal-pod-autoscaler"

// Config is what the controller is built from.
type Config struct {
	Client   kubernetes.Interface
	Scales   scale.ScalesGetter
	Mapper   meta.RESTMapper
	Metrics  MetricsClient
	HPAs     autoscalinginformers.HorizontalPodAutoscalerInformer
	Pods     coreinformers.PodInformer
	Recorder events.EventRecorder
	// SyncPeriod is how often each HPA is reconciled; 0 means
	// DefaultSyncPeriod.
	SyncPeriod time.Duration
	Clock      clock.WithTicker
	Logger     *slog.Logger
}

// Controller reconciles HorizontalPodAutoscalers.
type Controller struct {
	client    kubernetes.Interface
	scales    scale.ScalesGetter
	mapper    meta.RESTMapper
	metrics   MetricsClient
	lister    autoscalinglisters.HorizontalPodAutoscalerLister
	podLister corelisters.PodLister
	synced    []cache.InformerSynced
	recorder  events.EventRecorder
	queue     workqueue.TypedRateLimitingInterface[string]
	clock     clock.WithTicker
	logger    *slog.Logger

	// selectors are the last target selectors of each HPA (by key), to
	// find Pods that more than one HPA selects, as upstream does.
	mu        sync.Mutex
	selectors map[string]labels.Selector
}

// New builds the controller and registers its informer handlers.
func New(cfg Config) (*Controller, error) {
	period := cfg.SyncPeriod
	if period <= 0 {
		period = DefaultSyncPeriod
	}
	clk := cfg.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Controller{
		client: cfg.Client, scales: cfg.Scales, mapper: cfg.Mapper, metrics: cfg.Metrics,
		lister: cfg.HPAs.Lister(), podLister: cfg.Pods.Lister(),
		synced:   []cache.InformerSynced{cfg.HPAs.Informer().HasSynced, cfg.Pods.Informer().HasSynced},
		recorder: cfg.Recorder, clock: clk, logger: logger,
		selectors: map[string]labels.Selector{},
		// Upstream's HPA rate limiter: every re-add waits one sync
		// period, which is what makes the period.
		queue: workqueue.NewTypedRateLimitingQueueWithConfig[string](
			fixedInterval(period),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "horizontalpodautoscaler", Clock: clk},
		),
	}
	// No informer resync: every sync requeues its HPA one period later.
	_, err := cfg.HPAs.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.add,
		UpdateFunc: c.update,
		DeleteFunc: c.delete,
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Run reconciles until ctx ends; upstream runs workers concurrent syncs
// (--concurrent-horizontal-pod-autoscaler-syncs, default 5).
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.RunSynced(ctx, c.queue, workers, c.logger, c.synced, c.syncKey)
}

// syncKey reconciles one HPA and, unless it is gone, schedules its next
// sync one period later whatever the outcome, as upstream does.
func (c *Controller) syncKey(ctx context.Context, key string) error {
	deleted, err := c.reconcileKey(ctx, key)
	if err != nil && ctx.Err() == nil {
		c.logger.Info("horizontal pod autoscaler sync failed", "key", key, "err", err)
	}
	if !deleted {
		c.queue.AddRateLimited(key)
	}
	return nil
}

func (c *Controller) reconcileKey(ctx context.Context, key string) (bool, error) {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return true, err
	}
	hpa, err := c.lister.HorizontalPodAutoscalers(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.forget(key)
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return false, c.reconcile(ctx, hpa, key)
}

// add syncs a new HPA at once.
func (c *Controller) add(obj any) {
	if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
		c.queue.Add(key)
	}
}

// update syncs at once on a spec change (a new generation); a status
// write, the controller's own included, waits for the period.
func (c *Controller) update(oldObj, curObj any) {
	key, err := cache.MetaNamespaceKeyFunc(curObj)
	if err != nil {
		return
	}
	oldHPA, ok1 := oldObj.(*autoscalingv2.HorizontalPodAutoscaler)
	curHPA, ok2 := curObj.(*autoscalingv2.HorizontalPodAutoscaler)
	if ok1 && ok2 && oldHPA.Generation != curHPA.Generation {
		c.queue.Add(key)
		return
	}
	c.queue.AddRateLimited(key)
}

func (c *Controller) delete(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	c.queue.Forget(key)
	c.forget(key)
}

func (c *Controller) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.selectors, key)
}

// fixedInterval delays every item by the same interval.
type fixedInterval time.Duration

func (f fixedInterval) When(string) time.Duration { return time.Duration(f) }
func (fixedInterval) Forget(string)               {}
func (fixedInterval) NumRequeues(string) int      { return 1 }
