package negotiation

import (
	"fmt"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// statusError is a negotiation failure; it carries its Status so the
// response writers answer with the right code and reason.
type statusError struct {
	status metav1.Status
}

func (e *statusError) Error() string { return e.status.Message }

// Status makes the error an apierrors.APIStatus.
func (e *statusError) Status() metav1.Status { return e.status }

func newStatusError(code int32, reason metav1.StatusReason, msg string) error {
	return &statusError{metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason, Message: msg}}
}

// NewNotAcceptableError is the 406 listing the media types the server has.
func NewNotAcceptableError(accepted []string) error {
	return newStatusError(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
		fmt.Sprintf("only the following media types are accepted: %v", strings.Join(accepted, ", ")))
}

// NewUnsupportedMediaTypeError is the 415 listing the accepted body formats.
func NewUnsupportedMediaTypeError(accepted []string) error {
	return newStatusError(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %v", strings.Join(accepted, ", ")))
}
