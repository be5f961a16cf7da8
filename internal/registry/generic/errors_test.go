package generic

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/storage"
)

// revisionOnly is a storage that only knows its revision.
type revisionOnly struct {
	storage.Interface
	rev uint64
}

func (r revisionOnly) CurrentResourceVersion(context.Context) (uint64, error) { return r.rev, nil }

func TestInterpretStorageError(t *testing.T) {
	s := &Store{Storage: revisionOnly{rev: 42}}
	resource := corev1.Resource("configmaps")
	apiErr := apierrors.NewBadRequest("passes through")
	tests := []struct {
		name        string
		err         error
		ec          storageErrorContext
		wantCode    int32
		wantReason  metav1.StatusReason
		wantMessage string
	}{
		{"not found", storage.NewError(storage.ErrCodeKeyNotFound, "/k", 0, ""), storageErrorContext{op: opGet, name: "foo"},
			404, metav1.StatusReasonNotFound, `configmaps "foo" not found`},
		{"exists on create", storage.NewError(storage.ErrCodeKeyExists, "/k", 0, ""), storageErrorContext{op: opCreate, name: "foo"},
			409, metav1.StatusReasonAlreadyExists, `configmaps "foo" already exists`},
		{"exists on update", storage.NewError(storage.ErrCodeKeyExists, "/k", 0, ""), storageErrorContext{op: opUpdate, name: "foo"},
			409, metav1.StatusReasonConflict, `Operation cannot be fulfilled on configmaps "foo": ` + OptimisticLockErrorMsg},
		{"conflict with message", storage.NewError(storage.ErrCodeResourceVersionConflicts, "/k", 0, "Precondition failed: x"), storageErrorContext{op: opDelete, name: "foo"},
			409, metav1.StatusReasonConflict, `Operation cannot be fulfilled on configmaps "foo": Precondition failed: x`},
		{"unreachable", storage.NewError(storage.ErrCodeUnreachable, "", 0, ""), storageErrorContext{op: opList},
			500, metav1.StatusReasonServerTimeout, "The list operation against configmaps could not be completed at this time, please try again."},
		{"expired list", storage.NewError(storage.ErrCodeExpired, "", 3, ""), storageErrorContext{op: opList},
			410, metav1.StatusReasonExpired, expiredListMsg},
		{"expired continue", storage.NewError(storage.ErrCodeExpired, "", 3, ""), storageErrorContext{op: opList, continued: true},
			410, metav1.StatusReasonExpired, expiredContinueMsg},
		{"expired watch", storage.NewError(storage.ErrCodeExpired, "", 3, ""), storageErrorContext{op: opWatch},
			410, metav1.StatusReasonExpired, "too old resource version: 3"},
		{"too large", storage.NewError(storage.ErrCodeTooLargeResourceVersion, "", 99, ""), storageErrorContext{op: opGet},
			504, metav1.StatusReasonTimeout, "Timeout: Too large resource version: 99, current: 42"},
		{"invalid continue", storage.NewError(storage.ErrCodeInvalidContinue, "", 0, "bad base64"), storageErrorContext{op: opList},
			400, metav1.StatusReasonBadRequest, "invalid continue token: bad base64"},
		{"invalid object on get", storage.NewError(storage.ErrCodeInvalidObj, "/k", 0, "cannot decode"), storageErrorContext{op: opGet, name: "foo"},
			500, metav1.StatusReasonInternalError, "Internal error occurred: invalid object at /k: cannot decode"},
		{"api error passes", apiErr, storageErrorContext{op: opUpdate}, 400, metav1.StatusReasonBadRequest, "passes through"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.ec.resource = resource
			err := s.interpretStorageError(context.Background(), tt.err, tt.ec)
			var status apierrors.APIStatus
			if !errors.As(err, &status) {
				t.Fatalf("%v (%T) is not an API status", err, err)
			}
			got := status.Status()
			if got.Code != tt.wantCode || got.Reason != tt.wantReason || got.Message != tt.wantMessage {
				t.Errorf("got %d %s %q, want %d %s %q", got.Code, got.Reason, got.Message, tt.wantCode, tt.wantReason, tt.wantMessage)
			}
		})
	}
	if err := s.interpretStorageError(context.Background(), context.Canceled, storageErrorContext{}); !errors.Is(err, context.Canceled) {
		t.Errorf("a non-storage error became %v", err)
	}
}

func TestExpiredContinueCarriesFreshToken(t *testing.T) {
	s := &Store{Storage: revisionOnly{rev: 1}}
	se := &storage.Error{Code: storage.ErrCodeExpired, Message: "too old, continue with the token", Continue: "fresh"}
	err := s.interpretStorageError(context.Background(), se, storageErrorContext{op: opList, continued: true, resource: corev1.Resource("configmaps")})
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Code != 410 || status.Status().Continue != "fresh" {
		t.Fatalf("got %#v, want a 410 whose metadata.continue is the fresh token", err)
	}
}

func TestInvalidResourceVersionIsBadRequest(t *testing.T) {
	s := &Store{Storage: revisionOnly{rev: 1}}
	_, parseErr := storage.APIObjectVersioner{}.ParseResourceVersion("abc")
	err := s.interpretStorageError(context.Background(), parseErr, storageErrorContext{op: opWatch, resource: corev1.Resource("configmaps")})
	want := `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`
	if !apierrors.IsBadRequest(err) || err.Error() != want {
		t.Fatalf("got %v, want 400 %q", err, want)
	}
}

func TestTooLargeResourceVersionCause(t *testing.T) {
	s := &Store{Storage: revisionOnly{rev: 1}}
	err := s.interpretStorageError(context.Background(), storage.NewError(storage.ErrCodeTooLargeResourceVersion, "", 5, ""), storageErrorContext{op: opList})
	if !apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge) {
		t.Errorf("%v lacks the ResourceVersionTooLarge cause clients look for", err)
	}
}
