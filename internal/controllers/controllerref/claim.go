// Package controllerref adopts and releases the objects a controller
// selects, as kube-controller-manager's ControllerRefManager does: an
// orphan its selector matches gets the controller's reference (after a
// fresh read shows the controller is not being deleted), an object it
// controls that no longer matches loses it. Both are strategic merge
// patches on metadata.ownerReferences guarded by the object's UID.
package controllerref

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Manager claims objects of one kind for one controller.
type Manager struct {
	Controller metav1.Object
	Kind       schema.GroupVersionKind
	Selector   labels.Selector
	// Filter, when set, must accept an object besides the selector for it
	// to match (the StatefulSet's Pods must be named as its members).
	Filter func(metav1.Object) bool
	// Fresh re-reads the controller from the server, not a cache.
	Fresh func(ctx context.Context) (metav1.Object, error)
	// Patch applies a strategic merge patch to the named object.
	Patch func(ctx context.Context, name string, patch []byte) error

	checked  bool
	adoptErr error
}

// Claim returns the objects the controller owns after adopting matching
// orphans and releasing controlled objects that stopped matching.
func Claim[T metav1.Object](ctx context.Context, m *Manager, objs []T) ([]T, error) {
	var out []T
	var errs []error
	for _, o := range objs {
		ref := metav1.GetControllerOf(o)
		matches := m.Selector.Matches(labels.Set(o.GetLabels())) && (m.Filter == nil || m.Filter(o))
		switch {
		case ref != nil && ref.UID == m.Controller.GetUID():
			if matches {
				out = append(out, o)
				continue
			}
			if m.Controller.GetDeletionTimestamp() != nil {
				continue // a controller being deleted releases nothing
			}
			if err := m.release(ctx, o); err != nil {
				errs = append(errs, err)
			}
		case ref != nil, !matches, o.GetDeletionTimestamp() != nil, m.Controller.GetDeletionTimestamp() != nil:
		default:
			if err := m.adopt(ctx, o); err != nil {
				if !apierrors.IsNotFound(err) {
					errs = append(errs, err)
				}
				continue
			}
			out = append(out, o)
		}
	}
	if len(errs) > 0 {
		return out, errs[0]
	}
	return out, nil
}

// canAdopt reads the controller once per Claim: adoption stops when it
// was replaced or is being deleted.
func (m *Manager) canAdopt(ctx context.Context) error {
	if m.checked {
		return m.adoptErr
	}
	m.checked = true
	fresh, err := m.Fresh(ctx)
	switch {
	case err != nil:
		m.adoptErr = err
	case fresh.GetUID() != m.Controller.GetUID():
		m.adoptErr = fmt.Errorf("original %s %s/%s is gone: got uid %v, wanted %v", m.Kind.Kind, m.Controller.GetNamespace(), m.Controller.GetName(), fresh.GetUID(), m.Controller.GetUID())
	case fresh.GetDeletionTimestamp() != nil:
		m.adoptErr = fmt.Errorf("%s %s/%s has just been deleted at %v", m.Kind.Kind, m.Controller.GetNamespace(), m.Controller.GetName(), fresh.GetDeletionTimestamp())
	}
	return m.adoptErr
}

type ownerRefPatch struct {
	Meta struct {
		OwnerReferences []map[string]any `json:"ownerReferences"`
		UID             types.UID        `json:"uid"`
	} `json:"metadata"`
}

func (m *Manager) adopt(ctx context.Context, o metav1.Object) error {
	if err := m.canAdopt(ctx); err != nil {
		return err
	}
	var p ownerRefPatch
	p.Meta.UID = o.GetUID()
	p.Meta.OwnerReferences = []map[string]any{{
		"apiVersion": m.Kind.GroupVersion().String(), "kind": m.Kind.Kind,
		"name": m.Controller.GetName(), "uid": m.Controller.GetUID(),
		"controller": true, "blockOwnerDeletion": true,
	}}
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return m.Patch(ctx, o.GetName(), b)
}

func (m *Manager) release(ctx context.Context, o metav1.Object) error {
	var p ownerRefPatch
	p.Meta.UID = o.GetUID()
	p.Meta.OwnerReferences = []map[string]any{{"$patch": "delete", "uid": m.Controller.GetUID()}}
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	err = m.Patch(ctx, o.GetName(), b)
	if apierrors.IsNotFound(err) || apierrors.IsInvalid(err) {
		return nil // gone, or its UID changed: nothing of ours to release
	}
	return err
}
