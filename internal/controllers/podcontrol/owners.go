package podcontrol

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
)

// Owners finds the controllers an informer event of an owned object (a
// Pod, a ReplicaSet) concerns, as upstream's resolveControllerRef and
// getPodReplicaSets do: the owner its controllerRef names, or, for an
// orphan, every owner whose selector matches it (one of them may adopt
// it).
type Owners[O metav1.Object] struct {
	// Kind is the owner kind a controllerRef must name.
	Kind string
	// Get and List read owners from a lister.
	Get  func(namespace, name string) (O, error)
	List func(namespace string) ([]O, error)
	// Selector is an owner's label selector.
	Selector func(O) *metav1.LabelSelector
}

// Resolve is the owner ref names when ref is of Kind and the lister holds
// that very object (same UID): a recreated owner of the same name is not
// it.
func (o Owners[O]) Resolve(namespace string, ref *metav1.OwnerReference) (O, bool) {
	var zero O
	if ref == nil || ref.Kind != o.Kind {
		return zero, false
	}
	owner, err := o.Get(namespace, ref.Name)
	if err != nil || owner.GetUID() != ref.UID {
		return zero, false
	}
	return owner, true
}

// Selecting are the owners in namespace whose non-empty, valid selector
// matches lbls.
func (o Owners[O]) Selecting(namespace string, lbls map[string]string) []O {
	all, err := o.List(namespace)
	if err != nil {
		return nil
	}
	var out []O
	for _, owner := range all {
		sel, err := metav1.LabelSelectorAsSelector(o.Selector(owner))
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(lbls)) {
			continue
		}
		out = append(out, owner)
	}
	return out
}

// FromEvent is the object of a delete event, which may come wrapped in a
// tombstone when the informer missed the deletion; false when it is not
// a T.
func FromEvent[T any](obj any) (T, bool) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	t, ok := obj.(T)
	return t, ok
}
