// Package deployment is kube-controller-manager's deployment controller:
// it rolls a Deployment's template out through ReplicaSets named by
// pod-template-hash (rolling update within maxSurge/maxUnavailable, or
// recreate), records revisions in annotations, scales proportionally,
// cleans up old ReplicaSets past revisionHistoryLimit and reports the
// Progressing and Available conditions.
package deployment

import (
	"context"
	"log/slog"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// DeploymentKind is the owner of the ReplicaSets.
var DeploymentKind = metav1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

// Controller rolls Deployments out.
type Controller struct {
	client    kubernetes.Interface
	recorder  events.EventRecorder
	dLister   appslisters.DeploymentLister
	rsLister  appslisters.ReplicaSetLister
	podLister corelisters.PodLister
	clock     clock.Clock
	queue     workqueue.TypedRateLimitingInterface[string]
	synced    []cache.InformerSynced
	logger    *slog.Logger
}

// New returns the controller over the shared informers.
func New(client kubernetes.Interface, ds appsinformers.DeploymentInformer, rss appsinformers.ReplicaSetInformer, pods coreinformers.PodInformer, recorder events.EventRecorder, clk clock.Clock, logger *slog.Logger) (*Controller, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Controller{
		client: client, recorder: recorder, clock: clk, logger: logger,
		dLister: ds.Lister(), rsLister: rss.Lister(), podLister: pods.Lister(),
		queue:  worker.NewQueue("deployment"),
		synced: []cache.InformerSynced{ds.Informer().HasSynced, rss.Informer().HasSynced, pods.Informer().HasSynced},
	}
	handlers := []struct {
		inf cache.SharedIndexInformer
		h   cache.ResourceEventHandler
	}{
		{ds.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc:    c.enqueue,
			UpdateFunc: func(_, obj any) { c.enqueue(obj) },
			DeleteFunc: c.enqueue,
		}},
		{rss.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc:    c.addReplicaSet,
			UpdateFunc: c.updateReplicaSet,
			DeleteFunc: c.deleteReplicaSet,
		}},
		{pods.Informer(), cache.ResourceEventHandlerFuncs{DeleteFunc: c.deletePod}},
	}
	for _, h := range handlers {
		if _, err := h.inf.AddEventHandler(h.h); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Run waits for the caches, then syncs with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.RunSynced(ctx, c.queue, workers, c.logger, c.synced, c.sync)
}

func (c *Controller) enqueue(obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		c.queue.Add(key)
	}
}

func dKey(d *appsv1.Deployment) string { return d.Namespace + "/" + d.Name }

// resolve is the Deployment a controllerRef names, if it still exists.
func (c *Controller) resolve(ns string, ref *metav1.OwnerReference) *appsv1.Deployment {
	if ref.Kind != DeploymentKind.Kind {
		return nil
	}
	d, err := c.dLister.Deployments(ns).Get(ref.Name)
	if err != nil || d.UID != ref.UID {
		return nil
	}
	return d
}

// deploymentsFor are the Deployments whose selector matches an orphan
// ReplicaSet.
func (c *Controller) deploymentsFor(rs *appsv1.ReplicaSet) []*appsv1.Deployment {
	all, err := c.dLister.Deployments(rs.Namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	var out []*appsv1.Deployment
	for _, d := range all {
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(rs.Labels)) {
			continue
		}
		out = append(out, d)
	}
	return out
}

func (c *Controller) addReplicaSet(obj any) {
	rs := obj.(*appsv1.ReplicaSet)
	if rs.DeletionTimestamp != nil {
		c.deleteReplicaSet(rs)
		return
	}
	if ref := metav1.GetControllerOfNoCopy(rs); ref != nil {
		if d := c.resolve(rs.Namespace, ref); d != nil {
			c.queue.Add(dKey(d))
		}
		return
	}
	for _, d := range c.deploymentsFor(rs) {
		c.queue.Add(dKey(d))
	}
}

func (c *Controller) updateReplicaSet(oldObj, curObj any) {
	old, cur := oldObj.(*appsv1.ReplicaSet), curObj.(*appsv1.ReplicaSet)
	if old.ResourceVersion == cur.ResourceVersion {
		return
	}
	curRef, oldRef := metav1.GetControllerOfNoCopy(cur), metav1.GetControllerOfNoCopy(old)
	refChanged := (curRef == nil) != (oldRef == nil) || (curRef != nil && curRef.UID != oldRef.UID)
	if refChanged && oldRef != nil {
		if d := c.resolve(old.Namespace, oldRef); d != nil {
			c.queue.Add(dKey(d))
		}
	}
	if curRef != nil {
		if d := c.resolve(cur.Namespace, curRef); d != nil {
			c.queue.Add(dKey(d))
		}
		return
	}
	if refChanged || !labels.Equals(old.Labels, cur.Labels) {
		for _, d := range c.deploymentsFor(cur) {
			c.queue.Add(dKey(d))
		}
	}
}

func (c *Controller) deleteReplicaSet(obj any) {
	rs, ok := obj.(*appsv1.ReplicaSet)
	if !ok {
		tomb, ok := obj.(cache.DeletedFinalStateUnknown)
		if !ok {
			return
		}
		if rs, ok = tomb.Obj.(*appsv1.ReplicaSet); !ok {
			return
		}
	}
	if ref := metav1.GetControllerOfNoCopy(rs); ref != nil {
		if d := c.resolve(rs.Namespace, ref); d != nil {
			c.queue.Add(dKey(d))
		}
	}
}

// deletePod wakes a Recreate Deployment: it waits for its old Pods to
// be gone before it scales the new ReplicaSet up.
func (c *Controller) deletePod(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		tomb, ok := obj.(cache.DeletedFinalStateUnknown)
		if !ok {
			return
		}
		if pod, ok = tomb.Obj.(*corev1.Pod); !ok {
			return
		}
	}
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return
	}
	rs, err := c.rsLister.ReplicaSets(pod.Namespace).Get(ref.Name)
	if err != nil || rs.UID != ref.UID {
		return
	}
	rsRef := metav1.GetControllerOfNoCopy(rs)
	if rsRef == nil {
		return
	}
	if d := c.resolve(rs.Namespace, rsRef); d != nil && d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		c.queue.Add(dKey(d))
	}
}
