package storage

import (
	"errors"
	"fmt"
)

// ErrorCode says what went wrong in a storage operation; the registry maps it
// to an API status.
type ErrorCode int

// The storage error codes.
const (
	ErrCodeKeyNotFound ErrorCode = iota + 1
	ErrCodeKeyExists
	ErrCodeResourceVersionConflicts
	ErrCodeInvalidObj
	ErrCodeUnreachable
	// ErrCodeExpired: the requested resourceVersion was compacted.
	ErrCodeExpired
	// ErrCodeTooLargeResourceVersion: a resourceVersion newer than the
	// store has reached after waiting.
	ErrCodeTooLargeResourceVersion
	// ErrCodeInvalidContinue: a continue token that cannot be decoded.
	ErrCodeInvalidContinue
	// ErrCodeInvalidResourceVersion: a request's resourceVersion that is
	// not a number.
	ErrCodeInvalidResourceVersion
)

// Error is the typed error every backend returns.
type Error struct {
	Code            ErrorCode
	Key             string
	ResourceVersion int64
	// Message adds detail shown to the user (e.g. which precondition failed).
	Message string
	// Continue, on an ErrCodeExpired list error, is a token that resumes
	// the list at the latest revision (an inconsistent continuation).
	Continue string
	Err      error
}

func (e *Error) Error() string {
	var s string
	switch e.Code {
	case ErrCodeKeyNotFound:
		s = fmt.Sprintf("key not found: %s", e.Key)
	case ErrCodeKeyExists:
		s = fmt.Sprintf("key exists: %s", e.Key)
	case ErrCodeResourceVersionConflicts:
		s = fmt.Sprintf("resource version conflict on %s", e.Key)
	case ErrCodeInvalidObj:
		s = fmt.Sprintf("invalid object at %s", e.Key)
	case ErrCodeUnreachable:
		s = "storage unreachable"
	case ErrCodeExpired:
		s = fmt.Sprintf("resource version %d is too old", e.ResourceVersion)
	case ErrCodeTooLargeResourceVersion:
		s = fmt.Sprintf("resource version %d is too large", e.ResourceVersion)
	case ErrCodeInvalidContinue:
		s = "invalid continue token"
	case ErrCodeInvalidResourceVersion:
		s = "invalid resource version"
	default:
		s = "storage error"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// NewError builds a typed storage error.
func NewError(code ErrorCode, key string, rv int64, msg string) *Error {
	return &Error{Code: code, Key: key, ResourceVersion: rv, Message: msg}
}

// CodeOf returns the code of a storage error in err's chain, or 0.
func CodeOf(err error) ErrorCode {
	var se *Error
	if errors.As(err, &se) {
		return se.Code
	}
	return 0
}

// IsNotFound reports a missing key.
func IsNotFound(err error) bool { return CodeOf(err) == ErrCodeKeyNotFound }

// IsExists reports a key that is already taken.
func IsExists(err error) bool { return CodeOf(err) == ErrCodeKeyExists }

// IsConflict reports a failed precondition or compare-and-swap.
func IsConflict(err error) bool { return CodeOf(err) == ErrCodeResourceVersionConflicts }

// IsExpired reports a compacted resourceVersion.
func IsExpired(err error) bool { return CodeOf(err) == ErrCodeExpired }
