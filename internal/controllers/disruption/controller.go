// Package disruption is kube-controller-manager's disruption-controller
// run in-process: it keeps each PodDisruptionBudget's status (healthy
// Pods counted, desired and expected, disruptions allowed, the
// DisruptionAllowed condition, disruptedPods the eviction API recorded
// and that were not deleted in time dropped), finding the scale of the
// Pods' controllers for percentages and maxUnavailable, and resets a
// Pod's stale DisruptionTarget condition.
package disruption

import (
	"context"
	"log/slog"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	policyinformers "k8s.io/client-go/informers/policy/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// Upstream's timeouts: an evicted Pod not deleted within DeletionTimeout
// leaves disruptedPods; a DisruptionTarget condition on a Pod still not
// terminating after StalePodDisruptionTimeout is reset to False.
const (
	DeletionTimeout           = 2 * time.Minute
	StalePodDisruptionTimeout = 2 * time.Minute
)

// ScaleFinder returns the UID and spec.replicas of the object a
// controller reference names through its scale subresource; found is
// false when none with that UID exists.
type ScaleFinder func(ctx context.Context, ref *metav1.OwnerReference, namespace string) (uid string, replicas int32, found bool, err error)

// Informers are the shared informers the controller reads.
type Informers struct {
	Pods                   coreinformers.PodInformer
	PDBs                   policyinformers.PodDisruptionBudgetInformer
	ReplicationControllers coreinformers.ReplicationControllerInformer
	ReplicaSets            appsinformers.ReplicaSetInformer
	Deployments            appsinformers.DeploymentInformer
	StatefulSets           appsinformers.StatefulSetInformer
}

// Controller keeps PodDisruptionBudget status.
type Controller struct {
	client   kubernetes.Interface
	pods     corelisters.PodLister
	pdbs     policylisters.PodDisruptionBudgetLister
	rcs      corelisters.ReplicationControllerLister
	rss      appslisters.ReplicaSetLister
	deps     appslisters.DeploymentLister
	sets     appslisters.StatefulSetLister
	scale    ScaleFinder
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[string]
	stale    workqueue.TypedRateLimitingInterface[string]
	recorder events.EventRecorder
	clock    clock.Clock
	logger   *slog.Logger
}

// New wires the controller; scale may be nil (custom controllers are
// then reported as not found).
func New(client kubernetes.Interface, inf Informers, scale ScaleFinder, recorder events.EventRecorder, clk clock.Clock, logger *slog.Logger) (*Controller, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Controller{
		client: client, pods: inf.Pods.Lister(), pdbs: inf.PDBs.Lister(),
		rcs: inf.ReplicationControllers.Lister(), rss: inf.ReplicaSets.Lister(),
		deps: inf.Deployments.Lister(), sets: inf.StatefulSets.Lister(), scale: scale,
		synced: []cache.InformerSynced{inf.Pods.Informer().HasSynced, inf.PDBs.Informer().HasSynced,
			inf.ReplicationControllers.Informer().HasSynced, inf.ReplicaSets.Informer().HasSynced,
			inf.Deployments.Informer().HasSynced, inf.StatefulSets.Informer().HasSynced},
		queue:    worker.NewQueue("disruption"),
		stale:    worker.NewQueue("disruption_stale_pod_disruption"),
		recorder: recorder, clock: clk, logger: logger,
	}
	if _, err := inf.PDBs.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, cur any) { c.enqueue(cur) },
		DeleteFunc: c.enqueue,
	}); err != nil {
		return nil, err
	}
	if _, err := inf.Pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.podChanged,
		UpdateFunc: func(_, cur any) { c.podChanged(cur) },
		DeleteFunc: c.podChanged,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run runs one budget worker and one stale-condition worker, as
// upstream, until ctx ends.
func (c *Controller) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { worker.RunSynced(ctx, c.stale, 1, c.logger, c.synced, c.SyncStalePod) })
	worker.RunSynced(ctx, c.queue, 1, c.logger, c.synced, c.Sync)
	wg.Wait()
}

func (c *Controller) enqueue(obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		c.queue.Add(key)
	}
}

// podChanged wakes the first budget selecting the Pod (upstream picks
// one and warns when several match) and schedules a stale
// DisruptionTarget reset.
func (c *Controller) podChanged(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	pdbs, err := c.pdbs.GetPodPodDisruptionBudgets(pod)
	if err == nil && len(pdbs) > 0 {
		if len(pdbs) > 1 {
			c.recorder.Eventf(pod, nil, corev1.EventTypeWarning, "MultiplePodDisruptionBudgets", "Sync",
				"Pod %q/%q matches multiple PodDisruptionBudgets.  Chose %q arbitrarily.", pod.Namespace, pod.Name, pdbs[0].Name)
		}
		c.queue.Add(pod.Namespace + "/" + pdbs[0].Name)
	}
	if has, after := c.staleDisruption(pod); has {
		c.stale.AddAfter(pod.Namespace+"/"+pod.Name, after)
	}
}

// Sync recomputes one budget's status; a failure other than a conflict
// sets disruptionsAllowed to 0 with a SyncFailed condition (fail safe).
func (c *Controller) Sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pdb, err := c.pdbs.PodDisruptionBudgets(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	err = c.trySync(ctx, pdb)
	if err == nil || apierrors.IsConflict(err) {
		return err
	}
	c.logger.Error("syncing PodDisruptionBudget failed", "pdb", key, "err", err)
	return c.failSafe(ctx, pdb, err)
}

// writeStatus stores the budget's status through the status subresource.
func (c *Controller) writeStatus(ctx context.Context, pdb *policyv1.PodDisruptionBudget) error {
	_, err := c.client.PolicyV1().PodDisruptionBudgets(pdb.Namespace).UpdateStatus(ctx, pdb, metav1.UpdateOptions{})
	return err
}
