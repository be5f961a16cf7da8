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

	"github.com/kapi-dev/kapi/internal/controllers/podcontrol"
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
	owners    podcontrol.Owners[*appsv1.Deployment]
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
	c.owners = podcontrol.Owners[*appsv1.Deployment]{
		Kind: DeploymentKind.Kind,
		Get:  func(ns, name string) (*appsv1.Deployment, error) { return c.dLister.Deployments(ns).Get(name) },
		List: func(ns string) ([]*appsv1.Deployment, error) {
			return c.dLister.Deployments(ns).List(labels.Everything())
		},
		Selector: func(d *appsv1.Deployment) *metav1.LabelSelector { return d.Spec.Selector },
	}
	err := worker.AddHandlers(
		worker.Handler{Informer: ds.Informer(), Funcs: worker.EnqueueAll(c.queue)},
		worker.Handler{Informer: rss.Informer(), Funcs: cache.ResourceEventHandlerFuncs{
			AddFunc:    c.addReplicaSet,
			UpdateFunc: c.updateReplicaSet,
			DeleteFunc: c.deleteReplicaSet,
		}},
		worker.Handler{Informer: pods.Informer(), Funcs: cache.ResourceEventHandlerFuncs{DeleteFunc: c.deletePod}},
	)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Run waits for the caches, then syncs with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.RunSynced(ctx, c.queue, workers, c.logger, c.synced, c.sync)
}

func dKey(d *appsv1.Deployment) string { return d.Namespace + "/" + d.Name }

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
	for _, d := range c.owners.Selecting(rs.Namespace, rs.Labels) {
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
		for _, d := range c.owners.Selecting(cur.Namespace, cur.Labels) {
			c.queue.Add(dKey(d))
		}
	}
}

func (c *Controller) deleteReplicaSet(obj any) {
	rs, ok := podcontrol.FromEvent[*appsv1.ReplicaSet](obj)
	if !ok {
		return
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
	pod, ok := podcontrol.FromEvent[*corev1.Pod](obj)
	if !ok {
		return
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

// resolve is the Deployment a controllerRef names, if it still exists.
func (c *Controller) resolve(ns string, ref *metav1.OwnerReference) *appsv1.Deployment {
	d, _ := c.owners.Resolve(ns, ref)
	return d
}
