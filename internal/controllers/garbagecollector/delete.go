package garbagecollector

import (
	"context"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var (
	// errVirtualDeleteEnqueued: the object was found gone and the graph
	// told; nothing to retry.
	errVirtualDeleteEnqueued = errors.New("enqueued virtual delete event")
	// errNamespacedOwnerOfClusterScoped will not resolve on retry.
	errNamespacedOwnerOfClusterScoped = errors.New("cluster-scoped objects cannot refer to namespaced owners")
)

// view copies n under the graph's lock; inGraph says whether n is still
// the graph's node for its uid.
func (gc *GarbageCollector) view(n *node) (v nodeView, inGraph bool) {
	gc.mu.RLock()
	defer gc.mu.RUnlock()
	v = nodeView{
		identity: n.identity, owners: n.owners, virtual: n.virtual,
		beingDeleted: n.beingDeleted, deletingDependents: n.deletingDependents,
	}
	for dep := range n.dependents {
		v.dependents = append(v.dependents, dependentView{
			node: dep, identity: dep.identity,
			blocksOwner: dep.blocksOwner(n.identity.UID), deletingDependents: dep.deletingDependents,
		})
	}
	return v, gc.nodes[n.identity.UID] == n
}

func (gc *GarbageCollector) identityOf(n *node) objectReference {
	gc.mu.RLock()
	defer gc.mu.RUnlock()
	return n.identity
}

// attemptToDeleteWorker works one node; true asks for a rate-limited
// retry.
func (gc *GarbageCollector) attemptToDeleteWorker(ctx context.Context, n *node) bool {
	v, inGraph := gc.view(n)
	if !inGraph {
		// Found gone meanwhile.
		return false
	}
	err := gc.attemptToDeleteItem(ctx, n, v)
	switch {
	case errors.Is(err, errVirtualDeleteEnqueued), errors.Is(err, errNamespacedOwnerOfClusterScoped):
		return false
	case err != nil:
		if ctx.Err() == nil {
			var mapping *restMappingError
			if errors.As(err, &mapping) {
				gc.logger.Debug("owner kind not served (yet)", "item", v.identity.String(), "err", err)
			} else {
				gc.logger.Info("garbage collection of an item failed", "item", v.identity.String(), "err", err)
			}
		}
		return true
	}
	// A virtual node is looked at until an informer observes it, or a
	// lookup finds it gone: an object created and deleted while a watch
	// was re-established would otherwise stay in the graph.
	latest, _ := gc.view(n)
	return latest.virtual
}

// attemptToDeleteItem looks the object up and deletes it, or removes
// references from it, as its owners' states ask.
func (gc *GarbageCollector) attemptToDeleteItem(ctx context.Context, n *node, v nodeView) error {
	if v.beingDeleted && !v.deletingDependents {
		// Its deletion is under way; its dependents are looked at when
		// it is gone.
		return nil
	}
	latest, err := gc.latest(ctx, v)
	switch {
	case apierrors.IsNotFound(err):
		gc.enqueueVirtualDelete(v.identity)
		return errVirtualDeleteEnqueued
	case err != nil:
		return err
	}
	if latest.UID != v.identity.UID {
		gc.enqueueVirtualDelete(v.identity)
		return errVirtualDeleteEnqueued
	}
	if v.deletingDependents {
		return gc.processDeletingDependents(ctx, n, v)
	}
	owners := latest.OwnerReferences
	if len(owners) == 0 {
		return nil
	}
	solid, dangling, waiting, err := gc.classifyReferences(ctx, v.identity, owners)
	if err != nil {
		return err
	}
	switch {
	case len(solid) != 0:
		if len(dangling) == 0 && len(waiting) == 0 {
			return nil
		}
		// References to owners that wait for their dependents go too,
		// or those owners would wait forever.
		uids := append(uidsOf(dangling), uidsOf(waiting)...)
		gc.logger.Debug("removing owner references", "item", v.identity.String(), "owners", uids)
		return gc.removeOwnerReferences(ctx, v.identity, uids)
	case len(waiting) != 0 && len(v.dependents) != 0:
		for _, dep := range v.dependents {
			if dep.deletingDependents {
				// A dependent waits for its dependents while an owner
				// waits for this one: a cycle may be forming. Stop this
				// item blocking its owners, then delete it in foreground.
				gc.logger.Debug("unblocking owner references to break a possible cycle", "item", v.identity.String())
				if err := gc.unblockOwnerReferences(ctx, v.identity); err != nil {
					return err
				}
				break
			}
		}
		policy := metav1.DeletePropagationForeground
		return gc.deleteObject(ctx, v.identity, latest.ResourceVersion, latest.OwnerReferences, policy)
	default:
		// No owner left that keeps it: delete it, honouring a finalizer
		// a client already set on it.
		policy := metav1.DeletePropagationBackground
		switch {
		case hasFinalizer(latest, metav1.FinalizerOrphanDependents):
			policy = metav1.DeletePropagationOrphan
		case hasFinalizer(latest, metav1.FinalizerDeleteDependents):
			policy = metav1.DeletePropagationForeground
		}
		gc.logger.Debug("deleting item", "item", v.identity.String(), "propagation", policy)
		return gc.deleteObject(ctx, v.identity, latest.ResourceVersion, latest.OwnerReferences, policy)
	}
}

// latest is the object as the informer last saw it when the node was
// observed (the delete's resourceVersion precondition catches a stale
// cache), otherwise as a live lookup finds it.
func (gc *GarbageCollector) latest(ctx context.Context, v nodeView) (*metav1.PartialObjectMetadata, error) {
	if !v.virtual {
		if obj, ok := gc.cached(v.identity); ok {
			return obj, nil
		}
	}
	return gc.getObject(ctx, v.identity)
}

// processDeletingDependents removes the foregroundDeletion finalizer
// once no dependent blocks the owner, or looks at the blocking ones.
func (gc *GarbageCollector) processDeletingDependents(ctx context.Context, n *node, v nodeView) error {
	blocked := false
	for _, dep := range v.dependents {
		if !dep.blocksOwner {
			continue
		}
		blocked = true
		if !dep.deletingDependents {
			gc.attemptToDelete.Add(dep.node)
		}
	}
	if blocked {
		return nil
	}
	gc.logger.Debug("removing the foregroundDeletion finalizer", "item", v.identity.String())
	return gc.removeFinalizer(ctx, v.identity, metav1.FinalizerDeleteDependents)
}

// classifyReferences sorts an object's owner references: owners that
// exist (solid), owners gone (dangling), and owners being deleted in
// foreground (waiting).
func (gc *GarbageCollector) classifyReferences(ctx context.Context, item objectReference, refs []metav1.OwnerReference) (solid, dangling, waiting []metav1.OwnerReference, err error) {
	for _, ref := range refs {
		gone, owner, err := gc.isDangling(ctx, ref, item)
		if err != nil {
			return nil, nil, nil, err
		}
		switch {
		case gone:
			dangling = append(dangling, ref)
		case owner.DeletionTimestamp != nil && hasFinalizer(owner, metav1.FinalizerDeleteDependents):
			waiting = append(waiting, ref)
		default:
			solid = append(solid, ref)
		}
	}
	return solid, dangling, waiting, nil
}

// isDangling looks the owner up (the absent-owner cache first): an owner
// reference names an object in the dependent's namespace, or a
// cluster-scoped one; another uid under that name is absence too.
func (gc *GarbageCollector) isDangling(ctx context.Context, ref metav1.OwnerReference, item objectReference) (bool, *metav1.PartialObjectMetadata, error) {
	key := coordinates(ref)
	if _, ok := gc.absentOwners.Get(key); ok {
		return true, nil, nil
	}
	key.Namespace = item.Namespace
	if _, ok := gc.absentOwners.Get(key); ok {
		return true, nil, nil
	}
	gvr, namespaced, err := gc.apiResource(ref.APIVersion, ref.Kind)
	if err != nil {
		return false, nil, err
	}
	if !namespaced {
		key.Namespace = ""
	}
	if item.Namespace == "" && namespaced {
		gc.logger.Debug("a cluster-scoped object names a namespaced owner", "item", item.String(), "owner", ref.Kind+"/"+ref.Name)
		return false, nil, errNamespacedOwnerOfClusterScoped
	}
	owner, err := gc.metadata.Resource(gvr).Namespace(key.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		gc.absentOwners.Add(key, nil)
		return true, nil, nil
	case err != nil:
		return false, nil, err
	}
	if owner.UID != ref.UID {
		gc.absentOwners.Add(key, nil)
		return true, nil, nil
	}
	return false, owner, nil
}

func uidsOf(refs []metav1.OwnerReference) []types.UID {
	out := make([]types.UID, 0, len(refs))
	for _, r := range refs {
		out = append(out, r.UID)
	}
	return out
}
