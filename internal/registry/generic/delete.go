package generic

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/storage"
)

// Delete removes one object, or marks it when it cannot go yet: an object
// with finalizers gets deletionTimestamp (now) and deletionGracePeriodSeconds
// 0 and is returned as it now is with deleted=false; a graceful strategy's
// object gets a deletionTimestamp in the future. Preconditions that do not
// hold are a 409, a missing object a 404. A real deletion returns a Success
// Status naming the object, or the object itself when ReturnDeletedObject is
// set. With dryRun=All everything is checked and nothing changes.
//
// propagationPolicy (or orphanDependents, or the resource's default
// policy) is recorded as kube-apiserver does, for a garbage collector to
// act on: Orphan adds the "orphan" finalizer, Foreground the
// "foregroundDeletion" finalizer, and the object is kept marked for
// deletion until they are removed. A later delete may switch between them
// unless a graceful deletion is already pending.
func (s *Store) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	key, err := s.KeyFunc(ctx, name)
	if err != nil {
		return nil, false, err
	}
	// No options is an immediate delete; options are copied because
	// BeforeDelete fills them in and the caller's must stay as sent.
	if options == nil {
		options = metav1.NewDeleteOptions(0)
	} else {
		options = options.DeepCopy()
	}
	if deleteValidation == nil {
		deleteValidation = rest.ValidateAllObjectFunc
	}
	errCtx := storageErrorContext{op: opDelete, resource: s.qualifiedResource(ctx), name: name}
	obj := s.NewFunc()
	if err := s.Storage.Get(ctx, key, storage.GetOptions{}, obj); err != nil {
		return nil, false, s.interpretStorageError(ctx, err, errCtx)
	}
	graceful, pendingGraceful, err := rest.BeforeDelete(s.DeleteStrategy, ctx, obj, options)
	if err != nil {
		return nil, false, err
	}
	// A graceful deletion is already running and this one does not shorten
	// it: nothing changes.
	if pendingGraceful {
		out, err := s.finalizeDelete(ctx, obj)
		return out, false, err
	}
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	preconditions := storagePreconditions(options.Preconditions)

	var mark deletionMark
	// The garbage collection finalizers the options ask for are written
	// with the mark; the object then waits for the collector.
	gcChange, _ := s.gcFinalizers(ctx, accessor.GetFinalizers(), options)
	if graceful || gcChange || len(accessor.GetFinalizers()) > 0 {
		mark, err = s.markForDeletion(ctx, name, key, options, preconditions, deleteValidation, obj)
		if err != nil || !mark.deleteNow {
			return mark.out, false, err
		}
		// The mark changed the resourceVersion a precondition may name.
		if preconditions.ResourceVersion != nil {
			if m, err := meta.Accessor(mark.out); err == nil {
				rv := m.GetResourceVersion()
				preconditions.ResourceVersion = &rv
			}
		}
		// The dry-run update above already shows the final object; a
		// dry-run delete would read the unmarked one again.
		if isDryRun(options.DryRun) {
			return mark.out, true, nil
		}
	}
	return s.deleteNow(ctx, key, preconditions, deleteValidation, options.DryRun, mark, errCtx)
}

// deleteNow removes the object from storage.
func (s *Store) deleteNow(ctx context.Context, key string, preconditions *storage.Preconditions, deleteValidation rest.ValidateObjectFunc, dryRun []string, mark deletionMark, errCtx storageErrorContext) (runtime.Object, bool, error) {
	out := s.NewFunc()
	err := s.writerFor(dryRun).Delete(ctx, key, out, preconditions, storage.ValidateObjectFunc(deleteValidation))
	if err != nil {
		// A grace period of zero races with the components that finish
		// deletions (the kubelet for pods); if one of them won, the object
		// is gone as asked.
		if storage.IsNotFound(err) && mark.ignoreNotFound && mark.lastExisting != nil {
			out, err := s.finalizeDelete(ctx, mark.lastExisting)
			return out, true, err
		}
		return nil, false, s.interpretStorageError(ctx, err, errCtx)
	}
	out, err = s.finalizeDelete(ctx, out)
	return out, true, err
}

// finalizeDelete is what a DELETE returns: the object when the resource
// asks for it, otherwise a Success Status naming it (upstream puts the
// resource in details.kind).
func (s *Store) finalizeDelete(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
	if s.ReturnDeletedObject {
		return obj, nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	resource := s.qualifiedResource(ctx)
	return &metav1.Status{
		Status: metav1.StatusSuccess,
		Details: &metav1.StatusDetails{
			Name:  m.GetName(),
			Group: resource.Group,
			Kind:  resource.Resource,
			UID:   m.GetUID(),
		},
	}, nil
}
