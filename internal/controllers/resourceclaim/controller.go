// Package resourceclaim is kube-controller-manager's resourceclaim
// controller for resource.k8s.io/v1: it creates the ResourceClaim a Pod
// asks for through spec.resourceClaims[].resourceClaimTemplateName, owned
// by the Pod and recorded in the Pod's status.resourceClaimStatuses; it
// drops Pods that are gone or done from a claim's status.reservedFor,
// clears the allocation of a claim nobody uses any more (with its
// delete-protection finalizer), reserves an allocated claim for a Pod that
// already has a node, and deletes a generated claim whose Pod will not run.
//
// It needs no DRA driver: allocation is the scheduler's, preparation the
// kubelet's; without them claims stay unallocated and Pods Pending, as on a
// node-less upstream cluster.
package resourceclaim

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	resourceinformers "k8s.io/client-go/informers/resource/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

const (
	// PodClaimNameAnnotation marks a generated claim with the
	// spec.resourceClaims[].name of the Pod it was made for.
	PodClaimNameAnnotation = "resource.kubernetes.io/pod-claim-name"
	// FieldManager owns the Pod's status.resourceClaimStatuses.
	FieldManager = "ResourceClaimController"
	// Workers is kube-controller-manager's default ConcurrentSyncs.
	Workers = 50

	// podClaimIndex finds the Pods that use a claim (namespace/name).
	podClaimIndex = "kapi-resourceclaim-pod-claims"
	// claimOwnerIndex finds the claims a Pod (by UID) controls.
	claimOwnerIndex = "kapi-resourceclaim-pod-owner"

	claimKeyPrefix = "claim:"
	podKeyPrefix   = "pod:"

	// deletedPodsRemembered bounds the set of UIDs of Pods seen deleted.
	deletedPodsRemembered = 500
)

// Controller is the resourceclaim controller.
type Controller struct {
	client    kubernetes.Interface
	pods      corelisters.PodLister
	podIndex  cache.Indexer
	claims    resourcelisters.ResourceClaimLister
	templates resourcelisters.ResourceClaimTemplateLister
	// claimCache layers the claims this controller created over the
	// informer's, so a retry after a failed Pod status write finds the
	// claim instead of creating a second one.
	claimCache  cache.MutationCache
	synced      []cache.InformerSynced
	queue       workqueue.TypedRateLimitingInterface[string]
	recorder    events.EventRecorder
	logger      *slog.Logger
	deletedPods *uidSet
}

// New builds the controller over the shared informers.
func New(client kubernetes.Interface, pods coreinformers.PodInformer, claims resourceinformers.ResourceClaimInformer,
	templates resourceinformers.ResourceClaimTemplateInformer, recorder events.EventRecorder, logger *slog.Logger) (*Controller, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Controller{
		client:      client,
		pods:        pods.Lister(),
		podIndex:    pods.Informer().GetIndexer(),
		claims:      claims.Lister(),
		templates:   templates.Lister(),
		synced:      []cache.InformerSynced{pods.Informer().HasSynced, claims.Informer().HasSynced, templates.Informer().HasSynced},
		queue:       worker.NewQueue("resource_claim"),
		recorder:    recorder,
		logger:      logger,
		deletedPods: newUIDSet(deletedPodsRemembered),
	}
	if err := pods.Informer().AddIndexers(cache.Indexers{podClaimIndex: podClaimIndexFunc}); err != nil {
		return nil, fmt.Errorf("resourceclaim controller: %w", err)
	}
	claimIndexer := claims.Informer().GetIndexer()
	if err := claims.Informer().AddIndexers(cache.Indexers{claimOwnerIndex: claimOwnerIndexFunc}); err != nil {
		return nil, fmt.Errorf("resourceclaim controller: %w", err)
	}
	// An hour is far longer than the informer needs to catch up; adds are
	// kept because a created claim is exactly what the informer lacks.
	c.claimCache = cache.NewIntegerResourceVersionMutationCache(logr.FromSlogHandler(logger.Handler()), claimIndexer, claimIndexer, time.Hour, true)
	if _, err := pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.enqueuePod(obj, false) },
		UpdateFunc: func(_, obj any) { c.enqueuePod(obj, false) },
		DeleteFunc: func(obj any) { c.enqueuePod(obj, true) },
	}); err != nil {
		return nil, err
	}
	if _, err := claims.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.enqueueClaim(obj, false) },
		UpdateFunc: func(_, obj any) { c.enqueueClaim(obj, false) },
		DeleteFunc: func(obj any) { c.enqueueClaim(obj, true) },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run syncs with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.RunSynced(ctx, c.queue, workers, c.logger, c.synced, c.sync)
}

// enqueuePod queues the claims of a Pod that no longer needs them (so
// their reservations go) and the Pod itself when it has work.
func (c *Controller) enqueuePod(obj any, deleted bool) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	if len(pod.Spec.ResourceClaims) == 0 && pod.Status.ExtendedResourceClaimStatus == nil {
		return
	}
	if deleted {
		c.deletedPods.add(pod.UID)
	}
	if !podNeedsClaims(pod, deleted) {
		for i := range pod.Spec.ResourceClaims {
			if name, _, err := claimName(pod, &pod.Spec.ResourceClaims[i]); err == nil && name != nil {
				c.queue.Add(claimKeyPrefix + pod.Namespace + "/" + *name)
			}
		}
		// The scheduler's claim for DRA-backed extended resources is
		// released the same way.
		if st := pod.Status.ExtendedResourceClaimStatus; st != nil && st.ResourceClaimName != "" {
			c.queue.Add(claimKeyPrefix + pod.Namespace + "/" + st.ResourceClaimName)
		}
	}
	if !deleted && c.podNeedsWork(pod) {
		c.queue.Add(podKeyPrefix + pod.Namespace + "/" + pod.Name)
	}
}

// enqueueClaim queues a claim that exists (a deleted one has nothing left
// to clean) and every known Pod that uses it.
func (c *Controller) enqueueClaim(obj any, deleted bool) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	claim, ok := obj.(*resourceapi.ResourceClaim)
	if !ok {
		return
	}
	key := claim.Namespace + "/" + claim.Name
	if !deleted {
		c.queue.Add(claimKeyPrefix + key)
	}
	pods, err := c.podIndex.ByIndex(podClaimIndex, key)
	if err != nil {
		c.logger.Error("listing pods of a claim", "claim", key, "err", err)
		return
	}
	for _, p := range pods {
		c.enqueuePod(p, false)
	}
}

// sync dispatches a "pod:" or "claim:" key.
func (c *Controller) sync(ctx context.Context, key string) error {
	kind, rest, ok := strings.Cut(key, ":")
	if !ok {
		return fmt.Errorf("unexpected key %q", key)
	}
	ns, name, err := cache.SplitMetaNamespaceKey(rest)
	if err != nil {
		return err
	}
	switch kind + ":" {
	case podKeyPrefix:
		return c.syncPod(ctx, ns, name)
	case claimKeyPrefix:
		return c.syncClaim(ctx, ns, name)
	}
	return fmt.Errorf("unexpected key %q", key)
}
