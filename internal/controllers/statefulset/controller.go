// Package statefulset is kube-controller-manager's statefulset-controller
// run in-process: each StatefulSet gets Pods named <set>-<ordinal> with
// stable identity labels, created in order and one at a time waiting for
// Running and Ready (OrderedReady) or all at once (Parallel), PVCs from
// its volumeClaimTemplates owned as its retention policy says, template
// history in ControllerRevisions, RollingUpdate (partition,
// maxUnavailable) and OnDelete updates, and the status upstream reports.
package statefulset

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
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/controllers/history"
	"github.com/kapi-dev/kapi/internal/controllers/podcontrol"
	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// Workers is kube-controller-manager's --concurrent-statefulset-syncs.
const Workers = 5

// Controller reconciles StatefulSets.
type Controller struct {
	client   kubernetes.Interface
	sets     appslisters.StatefulSetLister
	pods     corelisters.PodLister
	claims   corelisters.PersistentVolumeClaimLister
	history  *history.History
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[string]
	recorder events.EventRecorder
	clock    clock.Clock
	logger   *slog.Logger
}

// New wires the controller to shared informers.
func New(client kubernetes.Interface, sets appsinformers.StatefulSetInformer, pods coreinformers.PodInformer,
	claims coreinformers.PersistentVolumeClaimInformer, revisions appsinformers.ControllerRevisionInformer,
	recorder events.EventRecorder, clk clock.Clock, logger *slog.Logger) (*Controller, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Controller{
		client:   client,
		sets:     sets.Lister(),
		pods:     pods.Lister(),
		claims:   claims.Lister(),
		history:  &history.History{Client: client, Lister: revisions.Lister()},
		synced:   []cache.InformerSynced{sets.Informer().HasSynced, pods.Informer().HasSynced, claims.Informer().HasSynced, revisions.Informer().HasSynced},
		queue:    worker.NewQueue("statefulset"),
		recorder: recorder,
		clock:    clk,
		logger:   logger,
	}
	err := worker.AddHandlers(
		worker.Handler{Informer: sets.Informer(), Funcs: worker.EnqueueAll(c.queue)},
		worker.Handler{Informer: pods.Informer(), Funcs: cache.ResourceEventHandlerFuncs{
			AddFunc:    c.podChanged,
			UpdateFunc: func(old, cur any) { c.podChanged(old); c.podChanged(cur) },
			DeleteFunc: c.podChanged,
		}},
	)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Run syncs with Workers workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.RunSynced(ctx, c.queue, workers, c.logger, c.synced, c.Sync)
}

// podChanged wakes the set controlling the Pod.
func (c *Controller) podChanged(obj any) {
	pod, ok := podcontrol.FromEvent[*corev1.Pod](obj)
	if !ok {
		return
	}
	ref := metav1.GetControllerOf(pod)
	if ref == nil || ref.Kind != setKind.Kind || ref.APIVersion != setKind.GroupVersion().String() {
		return
	}
	c.queue.Add(pod.Namespace + "/" + ref.Name)
}

// Sync reconciles one StatefulSet by key.
func (c *Controller) Sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	shared, err := c.sets.StatefulSets(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	set := shared.DeepCopy()
	selector, err := metav1.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil {
		c.recorder.Eventf(set, nil, corev1.EventTypeWarning, "InvalidSelector", "Sync", "Invalid selector: %v", err)
		return nil
	}
	if selector.Empty() {
		c.recorder.Eventf(set, nil, corev1.EventTypeWarning, "SelectingAll", "Sync", "This StatefulSet is selecting all pods. A non-empty selector is required.")
		return nil
	}
	pods, err := c.ownedPods(ctx, set, selector)
	if err != nil {
		return err
	}
	revisions, err := c.history.Claim(ctx, set, setKind, selector, func(ctx context.Context) (metav1.Object, error) {
		return c.client.AppsV1().StatefulSets(set.Namespace).Get(ctx, set.Name, metav1.GetOptions{})
	})
	if err != nil {
		return err
	}
	current, update, collisions, err := c.revisions(ctx, set, revisions)
	if err != nil {
		return err
	}
	status, syncErr := c.reconcile(ctx, set, pods, current, update, collisions)
	if status != nil {
		if err := c.writeStatus(ctx, set, status); err != nil {
			return err
		}
	}
	if syncErr != nil {
		return syncErr
	}
	if err := c.truncate(ctx, set, pods, revisions, current, update); err != nil {
		return err
	}
	c.requeueForAvailability(set, pods, key)
	return nil
}

// ownedPods are the set's Pods: it adopts orphans its selector matches
// that are named as its members and releases Pods that stopped
// matching, as upstream's getPodsForStatefulSet.
func (c *Controller) ownedPods(ctx context.Context, set *appsv1.StatefulSet, selector labels.Selector) ([]*corev1.Pod, error) {
	all, err := c.pods.Pods(set.Namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	m := &podcontrol.RefManager{
		Owner: set, OwnerGVK: metav1.GroupVersionKind(setKind), Selector: selector,
		Filter: func(o metav1.Object) bool { return isMember(set, o.(*corev1.Pod)) },
		CanAdopt: podcontrol.RecheckDeletion(func(ctx context.Context) (metav1.Object, error) {
			return c.client.AppsV1().StatefulSets(set.Namespace).Get(ctx, set.Name, metav1.GetOptions{})
		}, setKind.Kind, set),
	}
	return podcontrol.ClaimPatching(ctx, m, all, (&podcontrol.Control{Client: c.client}).PatchPod)
}

// requeueForAvailability syncs again when a ready Pod becomes available
// after minReadySeconds.
func (c *Controller) requeueForAvailability(set *appsv1.StatefulSet, pods []*corev1.Pod, key string) {
	if set.Spec.MinReadySeconds <= 0 {
		return
	}
	wait := time.Duration(0)
	for _, p := range pods {
		rc := podcontrol.ReadyCondition(p)
		if !podcontrol.IsReady(p) || podcontrol.IsAvailable(p, set.Spec.MinReadySeconds, c.clock.Now()) {
			continue
		}
		left := rc.LastTransitionTime.Add(time.Duration(set.Spec.MinReadySeconds)*time.Second).Sub(c.clock.Now()) + time.Second
		if wait == 0 || left < wait {
			wait = left
		}
	}
	if wait > 0 {
		c.queue.AddAfter(key, wait)
	}
}
