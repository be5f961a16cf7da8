package generic

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/storage"
)

// OptimisticLockErrorMsg is upstream's message for an update whose
// resourceVersion is not the stored one.
const OptimisticLockErrorMsg = "the object has been modified; please apply your changes to the latest version and try again"

// Upstream's 410 messages for lists and watches of compacted revisions.
const (
	expiredListMsg     = "The resourceVersion for the provided list is too old."
	expiredContinueMsg = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter."
)

// operation is the verb a storage error happened in; the same storage code
// means different things to different verbs (a taken key is AlreadyExists
// on create but a Conflict on update).
type operation string

const (
	opGet    operation = "get"
	opList   operation = "list"
	opCreate operation = "create"
	opUpdate operation = "update"
	opDelete operation = "delete"
	opWatch  operation = "watch"
)

// storageErrorContext is what a translation needs to know about the call.
type storageErrorContext struct {
	op       operation
	resource schema.GroupResource
	name     string
	// continued is set for a list that carried a continue token.
	continued bool
}

// interpretStorageError turns a typed storage error into the API status
// error a client sees. Anything else (an API error from inside tryUpdate, a
// context error) passes unchanged so its meaning is not lost.
func (s *Store) interpretStorageError(ctx context.Context, err error, ec storageErrorContext) error {
	var se *storage.Error
	if err == nil || !errors.As(err, &se) {
		return err
	}
	r, name := ec.resource, ec.name
	switch se.Code {
	case storage.ErrCodeKeyNotFound:
		return apierrors.NewNotFound(r, name)
	case storage.ErrCodeKeyExists:
		if ec.op == opCreate {
			return apierrors.NewAlreadyExists(r, name)
		}
		return apierrors.NewConflict(r, name, conflictCause(se))
	case storage.ErrCodeResourceVersionConflicts, storage.ErrCodeInvalidObj:
		if ec.op == opUpdate || ec.op == opDelete {
			return apierrors.NewConflict(r, name, conflictCause(se))
		}
		return apierrors.NewInternalError(err)
	case storage.ErrCodeUnreachable:
		return apierrors.NewServerTimeout(r, string(ec.op), 2)
	case storage.ErrCodeExpired:
		expired := apierrors.NewResourceExpired(expiredMessage(ec, se))
		expired.ErrStatus.Continue = se.Continue
		return expired
	case storage.ErrCodeTooLargeResourceVersion:
		return s.tooLargeResourceVersion(ctx, se)
	case storage.ErrCodeInvalidContinue, storage.ErrCodeInvalidResourceVersion:
		return apierrors.NewBadRequest(se.Error())
	default:
		return apierrors.NewInternalError(err)
	}
}

// conflictCause is the detail after `Operation cannot be fulfilled on
// configmaps "foo": `: the backend's message (a failed precondition) when
// it gave one, otherwise upstream's optimistic-lock text.
func conflictCause(se *storage.Error) error {
	if se.Message != "" {
		return errors.New(se.Message)
	}
	return errors.New(OptimisticLockErrorMsg)
}

// expiredMessage prefers the backend's text (it knows whether an
// inconsistent continuation is offered); the fallbacks are upstream's.
func expiredMessage(ec storageErrorContext, se *storage.Error) string {
	switch {
	case se.Message != "":
		return se.Message
	case ec.op == opList && ec.continued:
		return expiredContinueMsg
	case ec.op == opList:
		return expiredListMsg
	default:
		return fmt.Sprintf("too old resource version: %d", se.ResourceVersion)
	}
}

// tooLargeResourceVersion is upstream's 504: the client asked for a
// revision the store has not reached. The current revision is added when
// the store can tell it.
func (s *Store) tooLargeResourceVersion(ctx context.Context, se *storage.Error) error {
	msg := fmt.Sprintf("Too large resource version: %d", se.ResourceVersion)
	if current, err := s.Storage.CurrentResourceVersion(ctx); err == nil {
		msg += fmt.Sprintf(", current: %d", current)
	}
	err := apierrors.NewTimeoutError(msg, 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{
		Type:    metav1.CauseTypeResourceVersionTooLarge,
		Message: "Too large resource version",
	}}
	return err
}
