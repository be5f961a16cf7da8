package responsewriters

import (
	"errors"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// statusError is any error that knows its Status, apierrors.APIStatus
// among them.
type statusError interface {
	Status() metav1.Status
}

// ErrorToAPIStatus turns err into the Status sent to the client. Errors
// that carry no Status become a 500 with the error text and no reason, as
// upstream answers them. Callers should log those, as they mean a layer
// below failed to translate its error.
func ErrorToAPIStatus(err error) *metav1.Status {
	var se statusError
	if errors.As(err, &se) {
		status := se.Status()
		if status.Status == "" {
			status.Status = metav1.StatusFailure
		}
		if status.Code == 0 {
			status.Code = http.StatusInternalServerError
			if status.Status == metav1.StatusSuccess {
				status.Code = http.StatusOK
			}
		}
		status.Kind = "Status"
		status.APIVersion = "v1"
		return &status
	}
	return &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Code:     http.StatusInternalServerError,
		Reason:   metav1.StatusReasonUnknown,
		Message:  err.Error(),
	}
}

// IsAPIStatus reports whether err carries its own Status; the others are
// internal errors worth logging.
func IsAPIStatus(err error) bool {
	var se statusError
	return errors.As(err, &se)
}
