package garbagecollector

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

type eventType int

const (
	addEvent eventType = iota
	updateEvent
	deleteEvent
)

// event is an informer's observation, or a worker's finding that an
// object is gone (virtual).
type event struct {
	virtual   bool
	eventType eventType
	obj       metav1.Object
	oldObj    metav1.Object // updates only
	gvk       schema.GroupVersionKind
}

func identityFromEvent(e *event) objectReference {
	return objectReference{
		APIVersion: e.gvk.GroupVersion().String(),
		Kind:       e.gvk.Kind,
		Name:       e.obj.GetName(),
		UID:        e.obj.GetUID(),
		Namespace:  e.obj.GetNamespace(),
	}
}

// enqueueVirtualDelete tells the graph that a lookup found the object
// gone (or replaced by another with the same name).
func (gc *GarbageCollector) enqueueVirtualDelete(ref objectReference) {
	gv, _ := schema.ParseGroupVersion(ref.APIVersion)
	gc.graphChanges.Add(&event{
		virtual:   true,
		eventType: deleteEvent,
		obj:       &metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name, UID: ref.UID},
		gvk:       gv.WithKind(ref.Kind),
	})
}

// processGraphChange applies one event to the graph; only this goroutine
// changes it.
func (gc *GarbageCollector) processGraphChange() bool {
	e, quit := gc.graphChanges.Get()
	if quit {
		return false
	}
	defer gc.graphChanges.Done(e)
	gc.mu.Lock()
	defer gc.mu.Unlock()
	existing, found := gc.nodes[e.obj.GetUID()]
	if found && !e.virtual && existing.virtual {
		gc.observeLocked(e, existing)
	}
	switch {
	case e.eventType != deleteEvent && !found:
		n := newNode(identityFromEvent(e), e.obj.GetOwnerReferences())
		n.beingDeleted = beingDeleted(e.obj)
		n.deletingDependents = n.beingDeleted && hasFinalizer(e.obj, metav1.FinalizerDeleteDependents)
		gc.nodes[n.identity.UID] = n
		gc.addDependentToOwnersLocked(n, n.owners)
		gc.processTransitionsLocked(e.oldObj, e.obj, n)
	case e.eventType != deleteEvent:
		owners := e.obj.GetOwnerReferences()
		added, removed, changed := referencesDiffs(existing.owners, owners)
		if len(added)+len(removed)+len(changed) > 0 {
			gc.addUnblockedOwnersToDeleteQueueLocked(removed, changed)
			existing.owners = owners
			gc.addDependentToOwnersLocked(existing, added)
			gc.removeDependentFromOwnersLocked(existing, removed)
		}
		if beingDeleted(e.obj) {
			existing.beingDeleted = true
		}
		gc.processTransitionsLocked(e.oldObj, e.obj, existing)
	case !found:
		// A delete of something never seen: nothing depends on it here.
	default:
		gc.processDeleteLocked(e, existing)
	}
	return true
}

// observeLocked turns a virtual node into an observed one. Dependents
// that named the owner by other coordinates are looked at again; those in
// another namespace than a namespaced owner get an event.
func (gc *GarbageCollector) observeLocked(e *event, n *node) {
	observed := identityFromEvent(e)
	if observed != n.identity {
		_, mismatched := partitionDependents(n, observed)
		for _, dep := range mismatched {
			if observed.Namespace != "" && dep.identity.Namespace != observed.Namespace {
				gc.reportInvalidNamespaceOwnerRefLocked(dep, observed.UID)
			}
			gc.attemptToDelete.Add(dep)
		}
		n.identity = observed
	}
	n.virtual = false
}

// processDeleteLocked removes a deleted object from the graph, or, for a
// virtual delete whose coordinates some dependents do not share, only
// acts on the dependents that named it that way.
func (gc *GarbageCollector) processDeleteLocked(e *event, n *node) {
	deleted := identityFromEvent(e)
	if e.virtual {
		matching, mismatched := partitionDependents(n, deleted)
		keep := false
		switch {
		case n.virtual && len(mismatched) > 0:
			keep = true
			if n.identity == deleted {
				// Try the coordinates another dependent used.
				n.identity = alternateIdentity(mismatched, deleted)
				gc.attemptToDelete.AddRateLimited(n)
			}
		case !n.virtual && n.identity != deleted:
			keep = true
		}
		if keep {
			if len(matching) > 0 {
				gc.absentOwners.Add(deleted, nil)
				for _, dep := range matching {
					gc.attemptToDelete.Add(dep)
				}
			}
			return
		}
	}
	delete(gc.nodes, n.identity.UID)
	gc.removeDependentFromOwnersLocked(n, n.owners)
	if len(n.dependents) > 0 {
		gc.absentOwners.Add(deleted, nil)
	}
	for dep := range n.dependents {
		gc.attemptToDelete.Add(dep)
	}
	for _, ref := range n.owners {
		if owner, ok := gc.nodes[ref.UID]; ok && owner.deletingDependents {
			// Its last blocking dependent may just have gone.
			gc.attemptToDelete.Add(owner)
		}
	}
}

// partitionDependents splits n's dependents into those whose reference
// to n matches the given coordinates (namespace included when namespaced)
// and the others.
func partitionDependents(n *node, ref objectReference) (matching, mismatched []*node) {
	for dep := range n.dependents {
		ok := false
		for _, owner := range dep.owners {
			if owner.UID != ref.UID {
				continue
			}
			if coordinates(owner) == (objectReference{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, UID: ref.UID}) &&
				(ref.Namespace == "" || dep.identity.Namespace == ref.Namespace) {
				ok = true
			}
			break
		}
		if ok {
			matching = append(matching, dep)
		} else {
			mismatched = append(mismatched, dep)
		}
	}
	return matching, mismatched
}

// alternateIdentity is the first other way a dependent names the owner,
// in a stable order, so that each is tried in turn.
func alternateIdentity(deps []*node, verified objectReference) objectReference {
	var candidates []objectReference
	for _, dep := range deps {
		for _, ref := range dep.owners {
			if ref.UID == verified.UID {
				candidates = append(candidates, referenceTo(ref, dep.identity.Namespace))
			}
		}
	}
	slices.SortFunc(candidates, compareReferences)
	candidates = slices.Compact(candidates)
	for _, c := range candidates {
		if compareReferences(c, verified) > 0 {
			return c
		}
	}
	if len(candidates) > 0 {
		return candidates[0]
	}
	return verified
}

func compareReferences(a, b objectReference) int {
	for _, p := range [][2]string{{a.APIVersion, b.APIVersion}, {a.Kind, b.Kind}, {a.Name, b.Name}, {a.Namespace, b.Namespace}} {
		if p[0] < p[1] {
			return -1
		}
		if p[0] > p[1] {
			return 1
		}
	}
	return 0
}

// addDependentToOwnersLocked links n to each of owners, creating virtual
// nodes for owners not seen yet (a worker then verifies them), and looks
// at n again when an owner's observed coordinates disagree with n's
// reference.
func (gc *GarbageCollector) addDependentToOwnersLocked(n *node, owners []metav1.OwnerReference) {
	suspicious := false
	for _, ref := range owners {
		owner, ok := gc.nodes[ref.UID]
		if !ok {
			owner = newNode(referenceTo(ref, n.identity.Namespace), nil)
			owner.virtual = true
			gc.nodes[ref.UID] = owner
		}
		owner.dependents[n] = struct{}{}
		if !ok {
			gc.attemptToDelete.Add(owner)
			continue
		}
		if suspicious {
			continue
		}
		namespacedOwner := owner.identity.Namespace != ""
		switch {
		case namespacedOwner && owner.identity.Namespace != n.identity.Namespace:
			// An owner reference has no namespace: it names an object in
			// the dependent's own namespace (or a cluster-scoped one).
			if !owner.virtual {
				gc.reportInvalidNamespaceOwnerRefLocked(n, ref.UID)
			}
			suspicious = true
		case coordinates(ref) != (objectReference{APIVersion: owner.identity.APIVersion, Kind: owner.identity.Kind, Name: owner.identity.Name, UID: owner.identity.UID}):
			suspicious = true
		case !namespacedOwner && owner.identity.Namespace != n.identity.Namespace && owner.virtual:
			// A virtual cluster-scoped owner may be a namespaced one
			// named from a cluster-scoped dependent: verify.
			suspicious = true
		}
	}
	if suspicious {
		gc.attemptToDelete.Add(n)
	}
}

// reportInvalidNamespaceOwnerRefLocked records upstream's warning on a
// dependent whose owner lives in another namespace.
func (gc *GarbageCollector) reportInvalidNamespaceOwnerRefLocked(n *node, ownerUID types.UID) {
	if gc.recorder == nil {
		return
	}
	for _, ref := range n.owners {
		if ref.UID != ownerUID {
			continue
		}
		invalid := referenceTo(ref, n.identity.Namespace)
		gc.recorder.Eventf(&corev1.ObjectReference{
			APIVersion: n.identity.APIVersion, Kind: n.identity.Kind,
			Namespace: n.identity.Namespace, Name: n.identity.Name, UID: n.identity.UID,
		}, corev1.EventTypeWarning, "OwnerRefInvalidNamespace", "ownerRef %s does not exist in namespace %q", invalid, n.identity.Namespace)
		return
	}
}

// removeDependentFromOwnersLocked unlinks n from the owners it no longer
// names.
func (gc *GarbageCollector) removeDependentFromOwnersLocked(n *node, owners []metav1.OwnerReference) {
	for _, ref := range owners {
		if owner, ok := gc.nodes[ref.UID]; ok {
			delete(owner.dependents, n)
		}
	}
}

// addUnblockedOwnersToDeleteQueueLocked looks again at owners waiting for
// their dependents once a dependent stops blocking them.
func (gc *GarbageCollector) addUnblockedOwnersToDeleteQueueLocked(removed []metav1.OwnerReference, changed [][2]metav1.OwnerReference) {
	for _, ref := range removed {
		if blocking(ref) {
			if owner, ok := gc.nodes[ref.UID]; ok {
				gc.attemptToDelete.Add(owner)
			}
		}
	}
	for _, c := range changed {
		if blocking(c[0]) && !blocking(c[1]) {
			if owner, ok := gc.nodes[c[1].UID]; ok {
				gc.attemptToDelete.Add(owner)
			}
		}
	}
}

// processTransitionsLocked queues the work a deletion just asked for.
func (gc *GarbageCollector) processTransitionsLocked(oldObj, newObj metav1.Object, n *node) {
	if startsWaitingFor(oldObj, newObj, metav1.FinalizerOrphanDependents) {
		gc.attemptToOrphan.Add(n)
		return
	}
	if startsWaitingFor(oldObj, newObj, metav1.FinalizerDeleteDependents) {
		n.deletingDependents = true
		for dep := range n.dependents {
			gc.attemptToDelete.Add(dep)
		}
		gc.attemptToDelete.Add(n)
	}
}

// startsWaitingFor: newObj is being deleted with finalizer and oldObj
// (if any) was not.
func startsWaitingFor(oldObj, newObj metav1.Object, finalizer string) bool {
	if !beingDeleted(newObj) || !hasFinalizer(newObj, finalizer) {
		return false
	}
	return oldObj == nil || !beingDeleted(oldObj) || !hasFinalizer(oldObj, finalizer)
}

func beingDeleted(obj metav1.Object) bool { return obj.GetDeletionTimestamp() != nil }

func hasFinalizer(obj metav1.Object, finalizer string) bool {
	return slices.Contains(obj.GetFinalizers(), finalizer)
}

// referencesDiffs compares two lists of owner references by uid.
func referencesDiffs(old, new []metav1.OwnerReference) (added, removed []metav1.OwnerReference, changed [][2]metav1.OwnerReference) {
	oldByUID := map[string]metav1.OwnerReference{}
	for _, ref := range old {
		oldByUID[string(ref.UID)] = ref
	}
	for _, ref := range new {
		o, ok := oldByUID[string(ref.UID)]
		if !ok {
			added = append(added, ref)
			continue
		}
		if !ownerRefEqual(o, ref) {
			changed = append(changed, [2]metav1.OwnerReference{o, ref})
		}
		delete(oldByUID, string(ref.UID))
	}
	for _, ref := range old {
		if _, ok := oldByUID[string(ref.UID)]; ok {
			removed = append(removed, ref)
		}
	}
	return added, removed, changed
}

func ownerRefEqual(a, b metav1.OwnerReference) bool {
	return coordinates(a) == coordinates(b) && boolPtrEqual(a.Controller, b.Controller) && boolPtrEqual(a.BlockOwnerDeletion, b.BlockOwnerDeletion)
}

func boolPtrEqual(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
