package handlers

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// attrs describes one write of this scope to admission.
func (s *RequestScope) attrs(ctx context.Context, op admission.Operation, namespace, name string, obj, old runtime.Object, dryRun bool) *admission.Attributes {
	a := &admission.Attributes{
		Name:        name,
		Namespace:   namespace,
		Resource:    s.Resource,
		Subresource: s.Subresource,
		Kind:        s.Kind,
		Operation:   op,
		Object:      obj,
		OldObject:   old,
		DryRun:      dryRun,
		Options:     optionsFor(ctx, op, dryRun),
	}
	a.UserInfo, _ = request.UserFrom(ctx)
	return a
}

// mutate runs the mutating half of admission; managedFields it breaks are
// put back. Every write path runs the field manager (when the scope has
// one) before admission.
func (s *RequestScope) mutate(ctx context.Context, a *admission.Attributes) error {
	if s.Admission == nil {
		return nil
	}
	return guardManagedFields(ctx, a.Object, s.FieldManager != nil, func() error { return s.Admission.Admit(ctx, a) })
}

// validateObject is the ValidateObjectFunc of a create: validating
// admission, run by storage after defaulting and strategy validation.
// A generated name is only known then, so it is read from the object.
func (s *RequestScope) validateObject(op admission.Operation, namespace, name string, dryRun bool) rest.ValidateObjectFunc {
	if s.Admission == nil {
		return rest.ValidateAllObjectFunc
	}
	return func(ctx context.Context, obj runtime.Object) error {
		n := name
		if n == "" {
			if accessor, err := meta.Accessor(obj); err == nil {
				n = accessor.GetName()
			}
		}
		return s.Admission.Validate(ctx, s.attrs(ctx, op, namespace, n, obj, nil, dryRun))
	}
}

// validateObjectUpdate is the ValidateObjectUpdateFunc of an update.
func (s *RequestScope) validateObjectUpdate(namespace, name string, dryRun bool) rest.ValidateObjectUpdateFunc {
	if s.Admission == nil {
		return rest.ValidateAllObjectUpdateFunc
	}
	return func(ctx context.Context, obj, old runtime.Object) error {
		return s.Admission.Validate(ctx, s.attrs(ctx, admission.Update, namespace, name, obj, old, dryRun))
	}
}

// validateDelete is the ValidateObjectFunc of a delete: storage passes the
// object about to go, which admission sees as the old object. Upstream
// runs both halves of admission here.
func (s *RequestScope) validateDelete(namespace, name string, dryRun bool) rest.ValidateObjectFunc {
	if s.Admission == nil {
		return rest.ValidateAllObjectFunc
	}
	return func(ctx context.Context, old runtime.Object) error {
		n := name
		if n == "" {
			if accessor, err := meta.Accessor(old); err == nil {
				n = accessor.GetName()
			}
		}
		a := s.attrs(ctx, admission.Delete, namespace, n, nil, old, dryRun)
		if err := s.Admission.Admit(ctx, a); err != nil {
			return err
		}
		return s.Admission.Validate(ctx, a)
	}
}

// mutateOnUpdate runs mutating admission on the new object of an update
// or patch inside storage's retry loop: as a create when storage has no
// current object, as an update otherwise.
func (s *RequestScope) mutateOnUpdate(ctx context.Context, namespace, name string, obj, old runtime.Object, dryRun bool) error {
	exists, err := hasUID(old)
	if err != nil {
		return err
	}
	if !exists {
		return s.mutate(ctx, s.attrs(ctx, admission.Create, namespace, name, obj, nil, dryRun))
	}
	return s.mutate(ctx, s.attrs(ctx, admission.Update, namespace, name, obj, old, dryRun))
}

// updatedObjectInfo computes the new object from the current one each
// time storage (re)tries its update.
type updatedObjectInfo struct {
	preconditions *metav1.Preconditions
	update        func(ctx context.Context, old runtime.Object) (runtime.Object, error)
}

var _ rest.UpdatedObjectInfo = (*updatedObjectInfo)(nil)

func (i *updatedObjectInfo) Preconditions() *metav1.Preconditions { return i.preconditions }

func (i *updatedObjectInfo) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	return i.update(ctx, old)
}

// uidPrecondition makes a body's uid a precondition, so a PUT carrying the
// uid of a deleted object does not replace a newer one of the same name.
func uidPrecondition(obj runtime.Object) *metav1.Preconditions {
	accessor, err := meta.Accessor(obj)
	if err != nil || accessor.GetUID() == "" {
		return nil
	}
	uid := accessor.GetUID()
	return &metav1.Preconditions{UID: &uid}
}
