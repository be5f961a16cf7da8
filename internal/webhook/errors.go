package webhook

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// ErrCallingWebhook says a webhook could not be used: it could not be
// reached, its answer could not be read, or it answered with a non-2xx
// status. In the last case Status holds the answer, so callers can tell the
// two apart; Reason is the underlying error either way.
type ErrCallingWebhook struct {
	WebhookName string
	Reason      error
	Status      *apierrors.StatusError
}

func (e *ErrCallingWebhook) Error() string {
	if e.Reason != nil {
		return fmt.Sprintf("failed calling webhook %q: %v", e.WebhookName, e.Reason)
	}
	return fmt.Sprintf("failed calling webhook %q; no further details available", e.WebhookName)
}

// Unwrap lets errors.Is/As reach the cause (context.DeadlineExceeded, a
// *url.Error, the *apierrors.StatusError of a non-2xx answer).
func (e *ErrCallingWebhook) Unwrap() error { return e.Reason }
