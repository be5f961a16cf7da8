package webhook

import (
	"context"
	"errors"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Observer receives the outcome of every webhook call, for kube-apiserver's
// apiserver_admission_webhook_* metrics. step is "admit" (mutating) or
// "validating", upstream's type label values.
type Observer interface {
	// ObserveWebhook records a call that took elapsed; code is the HTTP
	// status it answered with (200 when allowed), 0 when kapi failed.
	ObserveWebhook(name, step, operation string, rejected bool, code int, elapsed time.Duration)
	// ObserveWebhookRejection records a call that rejected the request:
	// errorType is "calling_webhook_error", "no_error" (the webhook
	// denied) or "apiserver_internal_error".
	ObserveWebhookRejection(name, step, operation, errorType string, code int)
}

// Upstream's error_type label values.
const (
	rejectionCallingWebhook = "calling_webhook_error"
	rejectionNoError        = "no_error"
	rejectionInternal       = "apiserver_internal_error"
)

// Upstream's type label values.
const (
	stepAdmit      = "admit"
	stepValidating = "validating"
)

// callOutcome is what became of one webhook call, filled in by callOne.
type callOutcome struct {
	start   time.Time
	callErr error // the webhook could not be used
	denied  error // it answered no
	err     error // what admission returns (kapi's own failures included)
}

// observe records o for h, as upstream classifies it: a failure to call
// rejects unless the failure policy ignores it (a cancelled request is
// no rejection worth counting), a denial rejects with the webhook's code,
// anything else that failed is kapi's.
func (d *dispatcher) observe(h *hook, step, operation string, o *callOutcome) {
	m := d.opts.Metrics
	if m == nil {
		return
	}
	elapsed := time.Since(o.start)
	switch {
	case o.callErr != nil:
		code := callErrorCode(o.callErr)
		rejected := !h.ignoreFailures()
		if rejected && !errors.Is(o.callErr, context.Canceled) {
			m.ObserveWebhookRejection(h.name, step, operation, rejectionCallingWebhook, code)
		}
		m.ObserveWebhook(h.name, step, operation, rejected, code, elapsed)
	case o.denied != nil:
		code := http.StatusBadRequest
		var se *apierrors.StatusError
		if errors.As(o.denied, &se) {
			code = int(se.ErrStatus.Code)
		}
		m.ObserveWebhookRejection(h.name, step, operation, rejectionNoError, code)
		m.ObserveWebhook(h.name, step, operation, true, code, elapsed)
	case o.err != nil:
		m.ObserveWebhookRejection(h.name, step, operation, rejectionInternal, 0)
		m.ObserveWebhook(h.name, step, operation, true, 0, elapsed)
	default:
		m.ObserveWebhook(h.name, step, operation, false, http.StatusOK, elapsed)
	}
}

// callErrorCode is the status of a failed call: the webhook's own non-2xx
// answer, or 503 when it could not be reached or understood, as upstream.
func callErrorCode(err error) int {
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		return int(se.ErrStatus.Code)
	}
	return http.StatusServiceUnavailable
}
