package generic

import (
	"context"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/storage"
)

// errEmptiedFinalizers leaves GuaranteedUpdate when an update removed the
// last finalizer of an object being deleted: it must be deleted, not
// written.
var errEmptiedFinalizers = errors.New("emptied finalizers")

// Update computes the new object from the current one inside storage's
// guaranteed update (so patches retry against fresh data) and writes it.
// The new object's resourceVersion must be the stored one (409 otherwise);
// an empty one is a 422 unless the strategy allows unconditional updates. A
// missing object is created when the strategy or forceAllowCreate allows it,
// and created reports that. An update that removes the last finalizer of an
// object marked for deletion deletes it and returns the object as sent.
func (s *Store) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	if options == nil {
		options = &metav1.UpdateOptions{}
	}
	key, err := s.KeyFunc(ctx, name)
	if err != nil {
		return nil, false, err
	}
	u := &updateAttempt{
		s: s, ctx: ctx, name: name, key: key, objInfo: objInfo,
		createValidation: createValidation, updateValidation: updateValidation,
		allowCreate: s.UpdateStrategy.AllowCreateOnUpdate() || forceAllowCreate,
		resource:    s.qualifiedResource(ctx),
	}
	preconditions := storagePreconditions(objInfo.Preconditions())
	out := s.NewFunc()
	err = s.writerFor(options.DryRun).GuaranteedUpdate(ctx, key, out, u.allowCreate, preconditions, u.tryUpdate)
	switch {
	case errors.Is(err, errEmptiedFinalizers):
		return s.deleteWithoutFinalizers(ctx, name, key, u.deleteObj, preconditions, options.DryRun)
	case err != nil && u.creating:
		err = s.interpretStorageError(ctx, err, storageErrorContext{op: opCreate, resource: u.resource, name: name})
		return nil, false, rest.CheckGeneratedNameError(u.resource, err, u.creatingObj)
	case err != nil:
		return nil, false, s.interpretStorageError(ctx, err, storageErrorContext{op: opUpdate, resource: u.resource, name: name})
	}
	return out, u.creating, nil
}

// updateAttempt carries one Update through storage's retries; tryUpdate
// records whether it created the object or must delete it.
type updateAttempt struct {
	s                *Store
	ctx              context.Context
	name, key        string
	objInfo          rest.UpdatedObjectInfo
	createValidation rest.ValidateObjectFunc
	updateValidation rest.ValidateObjectUpdateFunc
	allowCreate      bool
	resource         schema.GroupResource

	creating    bool
	creatingObj runtime.Object
	deleteObj   runtime.Object
}

func (u *updateAttempt) tryUpdate(existing runtime.Object, res storage.ResponseMeta) (runtime.Object, error) {
	versioner := u.s.Storage.Versioner()
	existingRV, err := versioner.ObjectResourceVersion(existing)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if existingRV == 0 && !u.allowCreate {
		return nil, apierrors.NewNotFound(u.resource, u.name)
	}
	obj, err := u.objInfo.UpdatedObject(u.ctx, existing)
	if err != nil {
		return nil, err
	}
	if existingRV == 0 {
		return u.create(obj)
	}
	u.creating, u.creatingObj = false, nil
	if err := u.checkResourceVersion(obj, existingRV, res); err != nil {
		return nil, err
	}
	if err := rest.BeforeUpdate(u.s.UpdateStrategy, u.ctx, obj, existing); err != nil {
		return nil, err
	}
	if u.updateValidation != nil {
		if err := u.updateValidation(u.ctx, obj.DeepCopyObject(), existing.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	shouldDelete := u.s.ShouldDeleteDuringUpdate
	if shouldDelete == nil {
		shouldDelete = DefaultShouldDeleteDuringUpdate
	}
	if shouldDelete(obj, existing) {
		u.deleteObj = obj
		return nil, errEmptiedFinalizers
	}
	return obj, nil
}

// create is the create-on-update path: the object goes through the same
// checks as a POST.
func (u *updateAttempt) create(obj runtime.Object) (runtime.Object, error) {
	u.creating, u.creatingObj = true, obj
	if err := rest.BeforeCreate(u.s.CreateStrategy, u.ctx, obj); err != nil {
		return nil, err
	}
	if u.createValidation != nil {
		if err := u.createValidation(u.ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	return obj, nil
}

// checkResourceVersion is optimistic concurrency: the client must say
// which version it changed, and it must still be the stored one. Without a
// version, strategies that allow it overwrite whatever is stored.
func (u *updateAttempt) checkResourceVersion(obj runtime.Object, existingRV uint64, res storage.ResponseMeta) error {
	versioner := u.s.Storage.Versioner()
	newRV, err := versioner.ObjectResourceVersion(obj)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	switch {
	case newRV == 0 && u.s.UpdateStrategy.AllowUnconditionalUpdate():
		return versioner.UpdateObject(obj, res.ResourceVersion)
	case newRV == 0:
		// Upstream reports the resource, not the kind, in this 422.
		kind := schema.GroupKind{Group: u.resource.Group, Kind: u.resource.Resource}
		errs := field.ErrorList{field.Invalid(field.NewPath("metadata", "resourceVersion"), newRV, "must be specified for an update")}
		return apierrors.NewInvalid(kind, u.name, errs)
	case newRV != existingRV:
		return apierrors.NewConflict(u.resource, u.name, errors.New(OptimisticLockErrorMsg))
	}
	return nil
}

// DefaultShouldDeleteDuringUpdate: the update left no finalizers on an
// object a delete already marked (with no grace period still running).
func DefaultShouldDeleteDuringUpdate(obj, existing runtime.Object) bool {
	newMeta, err := meta.Accessor(obj)
	if err != nil || len(newMeta.GetFinalizers()) > 0 {
		return false
	}
	oldMeta, err := meta.Accessor(existing)
	if err != nil || oldMeta.GetDeletionTimestamp() == nil {
		return false
	}
	grace := oldMeta.GetDeletionGracePeriodSeconds()
	return grace == nil || *grace == 0
}

// deleteWithoutFinalizers finishes a deletion an update unblocked. The
// update already passed admission, so no delete validation runs. Clients
// expect the object of a successful PUT, so that is what is returned.
func (s *Store) deleteWithoutFinalizers(ctx context.Context, name, key string, obj runtime.Object, preconditions *storage.Preconditions, dryRun []string) (runtime.Object, bool, error) {
	out := s.NewFunc()
	err := s.writerFor(dryRun).Delete(ctx, key, out, preconditions, storage.ValidateObjectFunc(rest.ValidateAllObjectFunc))
	// Two updates may race to remove the last finalizers; the loser finds
	// the object gone, which is the outcome it asked for.
	if err != nil && !storage.IsNotFound(err) {
		return nil, false, s.interpretStorageError(ctx, err, storageErrorContext{op: opDelete, resource: s.qualifiedResource(ctx), name: name})
	}
	return obj, false, nil
}

// storagePreconditions converts API preconditions. The result is never
// nil, so backends need not guard against it.
func storagePreconditions(p *metav1.Preconditions) *storage.Preconditions {
	if p == nil {
		return &storage.Preconditions{}
	}
	return &storage.Preconditions{UID: p.UID, ResourceVersion: p.ResourceVersion}
}
