// Package replicaset is kube-controller-manager's replicaset and
// replicationcontroller controllers: keep spec.replicas Pods of an
// owner's template alive, adopting and releasing Pods by selector, and
// report their counts in status. ReplicationControllers run through the
// same code, converted to ReplicaSets and back, as upstream does.
package replicaset

import (
	"context"
	"log/slog"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/controllers/podcontrol"
	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// BurstReplicas caps the Pods one sync creates or deletes, upstream's 500.
const BurstReplicas = 500

// kind adapts the owner type: ReplicaSets as they are, RCs converted.
type kind struct {
	gvk metav1.GroupVersionKind
	// list and get read the cache, converted to ReplicaSets.
	list func(ns string) ([]*appsv1.ReplicaSet, error)
	get  func(ns, name string) (*appsv1.ReplicaSet, error)
	// getFresh is an uncached read, for adoption.
	getFresh func(ctx context.Context, ns, name string) (*appsv1.ReplicaSet, error)
	// updateStatus writes rs.Status back in the owner's own type.
	updateStatus func(ctx context.Context, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error)
	// original is the object events are recorded on.
	original func(rs *appsv1.ReplicaSet) ownerObject
	// terminating: the status has terminatingReplicas (ReplicaSets only).
	terminating bool
}

// ownerObject is an owner as events and references need it.
type ownerObject interface {
	metav1.Object
	runtime.Object
}

// Controller keeps the Pods of ReplicaSets (or RCs).
type Controller struct {
	kind         kind
	owners       podcontrol.Owners[*appsv1.ReplicaSet]
	client       kubernetes.Interface
	pods         *podcontrol.Control
	podLister    corelisters.PodLister
	expectations *podcontrol.Expectations
	clock        clock.Clock
	queue        workqueue.TypedRateLimitingInterface[string]
	synced       []cache.InformerSynced
	logger       *slog.Logger
	burst        int
}

func newController(k kind, owners cache.SharedIndexInformer, client kubernetes.Interface, pods coreinformers.PodInformer, recorder events.EventRecorder, clk clock.Clock, logger *slog.Logger, queueName string) (*Controller, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Controller{
		kind: k, client: client, clock: clk, logger: logger, burst: BurstReplicas,
		pods:         &podcontrol.Control{Client: client, Recorder: recorder},
		podLister:    pods.Lister(),
		expectations: podcontrol.NewExpectations(clk),
		queue:        worker.NewQueue(queueName),
		synced:       []cache.InformerSynced{owners.HasSynced, pods.Informer().HasSynced},
	}
	c.owners = podcontrol.Owners[*appsv1.ReplicaSet]{Kind: k.gvk.Kind, Get: k.get, List: k.list,
		Selector: func(rs *appsv1.ReplicaSet) *metav1.LabelSelector { return rs.Spec.Selector }}
	if _, err := owners.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
		DeleteFunc: func(obj any) {
			key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
			if err == nil {
				c.expectations.Delete(key)
				c.queue.Add(key)
			}
		},
	}); err != nil {
		return nil, err
	}
	if _, err := pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.addPod,
		UpdateFunc: c.updatePod,
		DeleteFunc: c.deletePod,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run waits for the caches, then syncs with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.RunSynced(ctx, c.queue, workers, c.logger, c.synced, c.sync)
}

func (c *Controller) enqueue(obj any) {
	if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
		c.queue.Add(key)
	}
}

func key(rs *appsv1.ReplicaSet) string { return rs.Namespace + "/" + rs.Name }

func (c *Controller) addPod(obj any) {
	pod := obj.(*corev1.Pod)
	if pod.DeletionTimestamp != nil {
		// Seen first already being deleted (a relist): a deletion.
		c.deletePod(pod)
		return
	}
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		if rs := c.resolve(pod.Namespace, ref); rs != nil {
			c.expectations.CreationObserved(key(rs))
			c.queue.Add(key(rs))
		}
		return
	}
	for _, rs := range c.owners.Selecting(pod.Namespace, pod.Labels) {
		c.queue.Add(key(rs))
	}
}

func (c *Controller) updatePod(oldObj, curObj any) {
	old, cur := oldObj.(*corev1.Pod), curObj.(*corev1.Pod)
	if old.ResourceVersion == cur.ResourceVersion {
		return // a resync
	}
	labelsChanged := !labels.Equals(old.Labels, cur.Labels)
	if cur.DeletionTimestamp != nil {
		// Graceful deletion counts as observed as soon as it starts.
		c.deletePod(cur)
		if labelsChanged {
			c.deletePod(old)
		}
		return
	}
	curRef, oldRef := metav1.GetControllerOfNoCopy(cur), metav1.GetControllerOfNoCopy(old)
	refChanged := !refEqual(curRef, oldRef)
	if refChanged && oldRef != nil {
		if rs := c.resolve(old.Namespace, oldRef); rs != nil {
			c.queue.Add(key(rs))
		}
	}
	if curRef != nil {
		rs := c.resolve(cur.Namespace, curRef)
		if rs == nil {
			return
		}
		c.queue.Add(key(rs))
		// Availability comes minReadySeconds after readiness; look again.
		if !podcontrol.IsReady(old) && podcontrol.IsReady(cur) && rs.Spec.MinReadySeconds > 0 {
			c.queue.AddAfter(key(rs), time.Duration(rs.Spec.MinReadySeconds)*time.Second+time.Second)
		}
		return
	}
	if labelsChanged || refChanged {
		for _, rs := range c.owners.Selecting(cur.Namespace, cur.Labels) {
			c.queue.Add(key(rs))
		}
	}
}

func refEqual(a, b *metav1.OwnerReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.UID == b.UID
}

func (c *Controller) deletePod(obj any) {
	pod, ok := podcontrol.FromEvent[*corev1.Pod](obj)
	if !ok {
		return
	}
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref == nil {
		return
	}
	if rs := c.resolve(pod.Namespace, ref); rs != nil {
		c.expectations.DeletionObserved(key(rs), podcontrol.PodKey(pod))
		c.queue.Add(key(rs))
	}
}

var everything = labels.Everything()

// resolve is the owner a controllerRef names, if it is of our kind and
// still the same object.
func (c *Controller) resolve(ns string, ref *metav1.OwnerReference) *appsv1.ReplicaSet {
	rs, _ := c.owners.Resolve(ns, ref)
	return rs
}
