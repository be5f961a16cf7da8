package metrics

import (
	"strconv"
	"time"

	admwebhook "github.com/kapi-dev/kapi/internal/admission/webhook"
)

// WebhookObserver returns the recorder of admission webhook calls, nil
// when m is nil (so the webhook plugins record nothing).
func (m *Metrics) WebhookObserver() admwebhook.Observer {
	if m == nil {
		return nil
	}
	return m.ops
}

var _ admwebhook.Observer = (*operations)(nil)

// ObserveWebhook records a call in apiserver_admission_webhook_request_total
// and apiserver_admission_webhook_admission_duration_seconds. Webhook calls
// take milliseconds; the label look-ups here are not worth a cache.
func (o *operations) ObserveWebhook(name, step, operation string, rejected bool, code int, elapsed time.Duration) {
	r := boolLabel(rejected)
	o.webhookRequests.WithLabelValues(name, step, operation, strconv.Itoa(truncateCode(code)), r).Inc()
	o.webhookDuration.WithLabelValues(name, step, operation, r).Observe(elapsed.Seconds())
}

// ObserveWebhookRejection counts a rejection in
// apiserver_admission_webhook_rejection_count.
func (o *operations) ObserveWebhookRejection(name, step, operation, errorType string, code int) {
	o.webhookRejections.WithLabelValues(name, step, operation, errorType, strconv.Itoa(truncateCode(code))).Inc()
}
