package filters

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ErrorToStatus returns the Status a client should see for err: the Status
// of an API error as it is, anything else as a 500 InternalError.
func ErrorToStatus(err error) metav1.Status {
	var apiStatus apierrors.APIStatus
	if !errors.As(err, &apiStatus) {
		apiStatus = apierrors.NewInternalError(err)
	}
	status := apiStatus.Status()
	if status.Status == "" {
		status.Status = metav1.StatusFailure
	}
	if status.Code == 0 {
		status.Code = http.StatusInternalServerError
	}
	status.Kind = "Status"
	status.APIVersion = "v1"
	return status
}

// WriteStatus writes err as a JSON metav1.Status with the code it carries,
// and a Retry-After header when the Status asks the client to retry.
func WriteStatus(w http.ResponseWriter, err error) {
	status := ErrorToStatus(err)
	body, merr := json.Marshal(&status)
	if merr != nil {
		// A Status always marshals; this is a defect, not a client error.
		http.Error(w, "internal error encoding status", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	if d := status.Details; d != nil && d.RetryAfterSeconds > 0 {
		h.Set("Retry-After", strconv.Itoa(int(d.RetryAfterSeconds)))
	}
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Del("Content-Length")
	w.WriteHeader(int(status.Code))
	w.Write(append(body, '\n'))
}
