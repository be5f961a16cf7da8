package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// operations are the families of the admission plugins and webhooks and
// of the audit backend: recorded where those run, not by the request
// filters.
type operations struct {
	controllerDuration *prometheus.HistogramVec
	webhookDuration    *prometheus.HistogramVec
	webhookRequests    *prometheus.CounterVec
	webhookRejections  *prometheus.CounterVec
	auditEvents        prometheus.Counter
	auditRejected      prometheus.Counter

	controllerChildren cache[pluginKey, prometheus.Observer]
}

// webhookBuckets are upstream's for webhook calls, which may take seconds.
var webhookBuckets = []float64{0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25}

func newOperations() *operations {
	o := &operations{
		controllerDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_admission_controller_admission_duration_seconds",
			Help:    stable + "Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
			Buckets: admissionBuckets,
		}, []string{"name", "type", "operation", "rejected"}),
		webhookDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_admission_webhook_admission_duration_seconds",
			Help:    stable + "Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
			Buckets: webhookBuckets,
		}, []string{"name", "type", "operation", "rejected"}),
		webhookRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_admission_webhook_request_total",
			Help: alpha + "Admission webhook request total, identified by name and broken out for each admission type (validating or mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
		}, []string{"name", "type", "operation", "code", "rejected"}),
		webhookRejections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_admission_webhook_rejection_count",
			Help: alpha + "Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
		}, []string{"name", "type", "operation", "error_type", "rejection_code"}),
		auditEvents: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "apiserver_audit_event_total",
			Help: alpha + "Counter of audit events generated and sent to the audit backend.",
		}),
		auditRejected: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "apiserver_audit_requests_rejected_total",
			Help: alpha + "Counter of apiserver requests rejected due to an error in audit logging backend.",
		}),
	}
	o.controllerChildren = newCache(func(k pluginKey) prometheus.Observer {
		return o.controllerDuration.WithLabelValues(k.name, k.step, k.operation, boolLabel(k.rejected))
	})
	return o
}

func (o *operations) collectors() []prometheus.Collector {
	return []prometheus.Collector{
		o.controllerDuration, o.webhookDuration, o.webhookRequests, o.webhookRejections,
		o.auditEvents, o.auditRejected,
	}
}

// registerOperations makes and registers the families of operations.go.
func (m *Metrics) registerOperations(reg prometheus.Registerer) error {
	m.ops = newOperations()
	for _, c := range m.ops.collectors() {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

func boolLabel(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// truncateCode bounds a status code label as upstream does.
func truncateCode(code int) int {
	return min(code, 600)
}
