package podcontrol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// RefManager claims objects for one controller, as upstream's
// BaseControllerRefManager: it adopts orphans its selector matches,
// releases the ones it controls that no longer match and never touches
// objects another controller owns.
type RefManager struct {
	Owner    metav1.Object
	OwnerGVK metav1.GroupVersionKind
	Selector labels.Selector
	// Filter, when set, must accept an object besides the selector for it
	// to match (a StatefulSet's Pods must be named as its members).
	Filter func(metav1.Object) bool
	// CanAdopt is asked once, before the first adoption: upstream
	// re-reads the owner uncached so a deleted owner adopts nothing.
	CanAdopt func(ctx context.Context) error

	once     sync.Once
	adoptErr error
}

// Claim returns the objects of objs the owner controls after adopting and
// releasing. adopt and release patch one object; a NotFound from either
// means the object is gone and is not an error.
func Claim[T metav1.Object](ctx context.Context, m *RefManager, objs []T, adopt, release func(context.Context, T) error) ([]T, error) {
	var claimed []T
	var errs []error
	for _, obj := range objs {
		ok, err := m.claimOne(ctx, obj, func(ctx context.Context) error { return adopt(ctx, obj) }, func(ctx context.Context) error { return release(ctx, obj) })
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			claimed = append(claimed, obj)
		}
	}
	return claimed, errors.Join(errs...)
}

func (m *RefManager) claimOne(ctx context.Context, obj metav1.Object, adopt, release func(context.Context) error) (bool, error) {
	matches := m.Selector.Matches(labels.Set(obj.GetLabels())) && (m.Filter == nil || m.Filter(obj))
	if ref := metav1.GetControllerOfNoCopy(obj); ref != nil {
		if ref.UID != m.Owner.GetUID() {
			return false, nil // another controller's
		}
		if matches {
			return true, nil
		}
		// Ours but no longer selected: let it go, unless the owner is
		// being deleted (the garbage collector handles it then).
		if m.Owner.GetDeletionTimestamp() != nil {
			return false, nil
		}
		if err := release(ctx); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsInvalid(err) {
			return false, err
		}
		return false, nil
	}
	// An orphan: adopt it when selected, alive and in the namespace.
	if m.Owner.GetDeletionTimestamp() != nil || !matches || obj.GetDeletionTimestamp() != nil {
		return false, nil
	}
	if ns := m.Owner.GetNamespace(); ns != "" && ns != obj.GetNamespace() {
		return false, nil
	}
	if err := m.canAdopt(ctx); err != nil {
		return false, fmt.Errorf("can't adopt %s/%s (%s): %w", obj.GetNamespace(), obj.GetName(), obj.GetUID(), err)
	}
	if err := adopt(ctx); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

func (m *RefManager) canAdopt(ctx context.Context) error {
	m.once.Do(func() {
		if m.CanAdopt != nil {
			m.adoptErr = m.CanAdopt(ctx)
		}
	})
	return m.adoptErr
}

// RecheckDeletion is a CanAdopt from an uncached read of the owner: an
// owner that is gone, replaced (another UID) or being deleted adopts
// nothing.
func RecheckDeletion(get func(ctx context.Context) (metav1.Object, error), kind string, o metav1.Object) func(context.Context) error {
	return func(ctx context.Context) error {
		fresh, err := get(ctx)
		if err != nil {
			return err
		}
		if fresh.GetUID() != o.GetUID() {
			return fmt.Errorf("original %s %s/%s is gone: got uid %s, wanted %s", kind, o.GetNamespace(), o.GetName(), fresh.GetUID(), o.GetUID())
		}
		if fresh.GetDeletionTimestamp() != nil {
			return fmt.Errorf("%s %s/%s has just been deleted at %v", kind, o.GetNamespace(), o.GetName(), fresh.GetDeletionTimestamp())
		}
		return nil
	}
}

// AdoptPatch is the strategic merge patch that makes the owner the
// controller of the object with uid (the uid guards against a
// recreated object of the same name).
func (m *RefManager) AdoptPatch(uid types.UID) []byte {
	ref := NewControllerRef(m.Owner, m.OwnerGVK)
	b, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"ownerReferences": []any{ref},
		"uid":             uid,
	}})
	return b
}

// ReleasePatch removes the owner's reference from the object with uid.
func (m *RefManager) ReleasePatch(uid types.UID) []byte {
	b, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"ownerReferences": []any{map[string]any{"$patch": "delete", "uid": m.Owner.GetUID()}},
		"uid":             uid,
	}})
	return b
}

// ClaimPatching is Claim with adoption and release as the strategic
// merge patches AdoptPatch and ReleasePatch, applied by patch to the
// object of that namespace and name.
func ClaimPatching[T metav1.Object](ctx context.Context, m *RefManager, objs []T, patch func(ctx context.Context, namespace, name string, body []byte) error) ([]T, error) {
	adopt := func(ctx context.Context, o T) error {
		return patch(ctx, o.GetNamespace(), o.GetName(), m.AdoptPatch(o.GetUID()))
	}
	release := func(ctx context.Context, o T) error {
		return patch(ctx, o.GetNamespace(), o.GetName(), m.ReleasePatch(o.GetUID()))
	}
	return Claim(ctx, m, objs, adopt, release)
}

// ClaimPods is Claim for Pods, patching them through c.
func ClaimPods(ctx context.Context, m *RefManager, c *Control, pods []*corev1.Pod) ([]*corev1.Pod, error) {
	return ClaimPatching(ctx, m, pods, c.PatchPod)
}
