package garbagecollector

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// objectReference is where an object is: an owner reference's
// coordinates plus the namespace. For an owner only known from its
// dependents' references (a virtual node) the namespace is the first
// dependent's, which may turn out wrong.
type objectReference struct {
	APIVersion string
	Kind       string
	Name       string
	UID        types.UID
	Namespace  string
}

// String is upstream's rendering, used in event messages.
func (r objectReference) String() string {
	return fmt.Sprintf("[%s/%s, namespace: %s, name: %s, uid: %s]", r.APIVersion, r.Kind, r.Namespace, r.Name, r.UID)
}

// coordinates is the reference without the namespace and the two flags,
// the part owners and dependents must agree on.
func coordinates(ref metav1.OwnerReference) objectReference {
	return objectReference{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, UID: ref.UID}
}

func referenceTo(ref metav1.OwnerReference, namespace string) objectReference {
	r := coordinates(ref)
	r.Namespace = namespace
	return r
}

// node is one object of the ownership graph. All its fields are guarded
// by the graph's lock; workers read copies taken under it.
type node struct {
	identity objectReference
	// owners are the object's owner references as last observed.
	owners []metav1.OwnerReference
	// dependents are the nodes that name this one among their owners.
	dependents map[*node]struct{}
	// virtual: known only from a dependent's reference, not yet observed
	// through an informer.
	virtual bool
	// beingDeleted: the object has a deletionTimestamp.
	beingDeleted bool
	// deletingDependents: being deleted with the foregroundDeletion
	// finalizer, so its blocking dependents go first.
	deletingDependents bool
}

func newNode(identity objectReference, owners []metav1.OwnerReference) *node {
	return &node{identity: identity, owners: owners, dependents: map[*node]struct{}{}}
}

// blocking reports whether ref (one of this node's owner references)
// keeps its owner from finishing a foreground deletion.
func blocking(ref metav1.OwnerReference) bool {
	return ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion
}

// blocksOwner reports whether this node holds up owner's foreground
// deletion.
func (n *node) blocksOwner(owner types.UID) bool {
	for _, ref := range n.owners {
		if ref.UID == owner && blocking(ref) {
			return true
		}
	}
	return false
}

// nodeView is a worker's copy of a node, taken under the graph's lock.
type nodeView struct {
	identity           objectReference
	owners             []metav1.OwnerReference
	virtual            bool
	beingDeleted       bool
	deletingDependents bool
	dependents         []dependentView
}

// dependentView is what a worker needs to know of a dependent.
type dependentView struct {
	node               *node
	identity           objectReference
	blocksOwner        bool
	deletingDependents bool
}
