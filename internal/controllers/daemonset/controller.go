// Package daemonset is kube-controller-manager's daemonset-controller
// run in-process: each DaemonSet gets one Pod per Node object its node
// selector, required node affinity and tolerations admit (Pods carry
// upstream's default tolerations and a metadata.name node affinity for
// the scheduler), template history in ControllerRevisions, RollingUpdate
// (maxUnavailable, maxSurge) and OnDelete updates, and the status
// upstream reports.
package daemonset

import (
	"context"
	"log/slog"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/controllers/history"
	"github.com/kapi-dev/kapi/internal/controllers/podcontrol"
	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// Workers is kube-controller-manager's --concurrent-daemonset-syncs.
const Workers = 2

// Controller reconciles DaemonSets.
type Controller struct {
	client       kubernetes.Interface
	sets         appslisters.DaemonSetLister
	pods         corelisters.PodLister
	nodes        corelisters.NodeLister
	history      *history.History
	synced       []cache.InformerSynced
	queue        workqueue.TypedRateLimitingInterface[string]
	podControl   *podcontrol.Control
	expectations *podcontrol.Expectations
	// failedBackoff spaces out replacing a node's failed Pod.
	failedBackoff *flowcontrol.Backoff
	recorder      events.EventRecorder
	enqueue       func(obj any) // queues a DaemonSet
	clock         clock.Clock
	logger        *slog.Logger
}

// New wires the controller to shared informers.
func New(client kubernetes.Interface, sets appsinformers.DaemonSetInformer, pods coreinformers.PodInformer,
	nodes coreinformers.NodeInformer, revisions appsinformers.ControllerRevisionInformer,
	recorder events.EventRecorder, clk clock.Clock, logger *slog.Logger) (*Controller, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Controller{
		client: client, sets: sets.Lister(), pods: pods.Lister(), nodes: nodes.Lister(),
		history: &history.History{Client: client, Lister: revisions.Lister()},
		synced: []cache.InformerSynced{sets.Informer().HasSynced, pods.Informer().HasSynced,
			nodes.Informer().HasSynced, revisions.Informer().HasSynced},
		queue:         worker.NewQueue("daemonset"),
		podControl:    &podcontrol.Control{Client: client, Recorder: recorder},
		expectations:  podcontrol.NewExpectations(clk),
		failedBackoff: flowcontrol.NewBackOffWithJitter(time.Second, 15*time.Minute, 0),
		recorder:      recorder, clock: clk, logger: logger,
	}
	c.enqueue = worker.Enqueue(c.queue)
	err := worker.AddHandlers(
		worker.Handler{Informer: sets.Informer(), Funcs: cache.ResourceEventHandlerFuncs{
			AddFunc:    c.enqueue,
			UpdateFunc: func(_, cur any) { c.enqueue(cur) },
			DeleteFunc: c.setDeleted,
		}},
		worker.Handler{Informer: pods.Informer(), Funcs: cache.ResourceEventHandlerFuncs{
			AddFunc:    func(o any) { c.podEvent(o, 1, 0) },
			UpdateFunc: func(_, cur any) { c.podEvent(cur, 0, 0) },
			DeleteFunc: func(o any) { c.podEvent(o, 0, 1) },
		}},
		worker.Handler{Informer: nodes.Informer(), Funcs: cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { c.enqueueAll() },
			UpdateFunc: c.nodeUpdated,
			DeleteFunc: func(any) { c.enqueueAll() },
		}},
	)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Run syncs with the given number of workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.RunSynced(ctx, c.queue, workers, c.logger, c.synced, c.Sync)
}

func (c *Controller) setDeleted(obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		c.expectations.Delete(key)
	}
}

func (c *Controller) enqueueAll() {
	sets, err := c.sets.List(labels.Everything())
	if err != nil {
		return
	}
	for _, ds := range sets {
		c.enqueue(ds)
	}
}

// nodeUpdated resyncs the sets when what decides placement changed.
func (c *Controller) nodeUpdated(old, cur any) {
	o, ok1 := old.(*corev1.Node)
	n, ok2 := cur.(*corev1.Node)
	if ok1 && ok2 && labels.Equals(o.Labels, n.Labels) && taintsEqual(o.Spec.Taints, n.Spec.Taints) &&
		o.Spec.Unschedulable == n.Spec.Unschedulable {
		return
	}
	c.enqueueAll()
}

func taintsEqual(a, b []corev1.Taint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].Value != b[i].Value || a[i].Effect != b[i].Effect {
			return false
		}
	}
	return true
}

// podEvent records an observed creation or deletion and wakes the
// controlling set.
func (c *Controller) podEvent(obj any, adds, dels int) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	ref := metav1.GetControllerOf(pod)
	if ref == nil || ref.Kind != dsKind.Kind || ref.APIVersion != dsKind.GroupVersion().String() {
		return
	}
	key := pod.Namespace + "/" + ref.Name
	if adds > 0 && pod.DeletionTimestamp != nil {
		adds, dels = 0, 1 // a Pod first seen already being deleted
	}
	c.expectations.Observed(key, adds, dels)
	c.queue.Add(key)
}

// Sync reconciles one DaemonSet by key.
func (c *Controller) Sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	shared, err := c.sets.DaemonSets(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.expectations.Delete(key)
		return nil
	}
	if err != nil {
		return err
	}
	ds := shared.DeepCopy()
	selector, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil || selector.Empty() {
		c.recorder.Eventf(ds, nil, corev1.EventTypeWarning, "SelectingAll", "Sync", "This daemon set is selecting all pods. A non-empty selector is required.")
		return nil
	}
	nodes, err := c.nodes.List(labels.Everything())
	if err != nil {
		return err
	}
	cur, old, err := c.constructHistory(ctx, ds, selector)
	if err != nil {
		return err
	}
	hash := cur.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
	if ds.DeletionTimestamp != nil || !c.expectations.Satisfied(key) {
		return c.updateStatus(ctx, ds, nodes, selector, hash, false)
	}
	if err := c.manage(ctx, ds, nodes, selector, hash); err != nil {
		return err
	}
	if c.expectations.Satisfied(key) && ds.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if err := c.rollingUpdate(ctx, ds, nodes, selector, hash); err != nil {
			return err
		}
	}
	if err := c.cleanupHistory(ctx, ds, selector, old, cur); err != nil {
		return err
	}
	return c.updateStatus(ctx, ds, nodes, selector, hash, true)
}
