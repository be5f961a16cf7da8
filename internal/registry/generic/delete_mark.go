package generic

import (
	"context"
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/storage"
)

// Signals from inside the marking update; neither reaches a client.
var (
	// errAlreadyDeleting: a graceful deletion began meanwhile.
	errAlreadyDeleting = errors.New("abort delete")
	// errDeleteNow: nothing holds the object back any more.
	errDeleteNow = errors.New("delete now")
)

// deletionMark is the outcome of markForDeletion.
type deletionMark struct {
	// deleteNow: remove the object now rather than leave it marked.
	deleteNow bool
	// ignoreNotFound: the object may be gone by the time it is removed,
	// which is then not an error.
	ignoreNotFound bool
	// out is the object as the mark left it (nil when nothing was written).
	out runtime.Object
	// lastExisting is the object the last attempt saw.
	lastExisting runtime.Object
}

// markForDeletion writes the deletion mark on the current object in one
// guaranteed update: the garbage collection finalizers the options ask
// for, deletionTimestamp and deletionGracePeriodSeconds, from the graceful
// strategy or, for an object with finalizers, now and 0. The checks of
// BeforeDelete run again on the fresh object inside the update.
func (s *Store) markForDeletion(ctx context.Context, name, key string, options *metav1.DeleteOptions, preconditions *storage.Preconditions, deleteValidation rest.ValidateObjectFunc, in runtime.Object) (deletionMark, error) {
	var (
		mark              deletionMark
		lastGraceful      int64
		pendingFinalizers bool
	)
	out := s.NewFunc()
	tryUpdate := func(existing runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
		if err := deleteValidation(ctx, existing); err != nil {
			return nil, err
		}
		graceful, pendingGraceful, err := rest.BeforeDelete(s.DeleteStrategy, ctx, existing, options)
		if err != nil {
			return nil, err
		}
		if pendingGraceful {
			return nil, errAlreadyDeleting
		}
		m, err := meta.Accessor(existing)
		if err != nil {
			return nil, err
		}
		// After the pending-graceful check: options cannot change the
		// finalizers of an object whose grace period is running.
		if change, finalizers := s.gcFinalizers(ctx, m.GetFinalizers(), options); change {
			m.SetFinalizers(finalizers)
		}
		pendingFinalizers = len(m.GetFinalizers()) > 0
		if !graceful {
			if !pendingFinalizers {
				return nil, errDeleteNow
			}
			markAsDeleting(m, time.Now())
			return existing, nil
		}
		lastGraceful = *options.GracePeriodSeconds
		mark.lastExisting = existing
		return existing, nil
	}
	err := s.writerFor(options.DryRun).GuaranteedUpdate(ctx, key, out, false, preconditions, tryUpdate)
	switch {
	case err == nil:
		mark.out = out
		// Finalizers always hold the object; a running grace period too.
		if pendingFinalizers || lastGraceful > 0 {
			return mark, nil
		}
		mark.deleteNow, mark.ignoreNotFound = true, true
		return mark, nil
	case errors.Is(err, errDeleteNow):
		mark.deleteNow = true
		return mark, nil
	case errors.Is(err, errAlreadyDeleting):
		mark.out, err = s.finalizeDelete(ctx, in)
		return mark, err
	default:
		return mark, s.interpretStorageError(ctx, err, storageErrorContext{op: opUpdate, resource: s.qualifiedResource(ctx), name: name})
	}
}

// markAsDeleting sets deletionTimestamp to now (unless an earlier one is
// already set) and the grace period to 0: the object waits only for its
// finalizers. The first mark bumps generation for objects that track it,
// because controllers treat deletion as a change of intent.
func markAsDeleting(m metav1.Object, now time.Time) {
	if m.GetDeletionTimestamp() == nil && m.GetGeneration() > 0 {
		m.SetGeneration(m.GetGeneration() + 1)
	}
	if ts := m.GetDeletionTimestamp(); ts == nil || ts.After(now) {
		t := metav1.NewTime(now)
		m.SetDeletionTimestamp(&t)
	}
	var zero int64
	m.SetDeletionGracePeriodSeconds(&zero)
}
