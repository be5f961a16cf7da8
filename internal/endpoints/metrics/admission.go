package metrics

import (
	"context"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/internal/admission"
)

// admissionBuckets are upstream's for admission steps.
var admissionBuckets = []float64{0.005, 0.025, 0.1, 0.5, 1.0, 2.5}

func newAdmissionStep() *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "apiserver_admission_step_admission_duration_seconds",
		Help:    stable + "Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).",
		Buckets: admissionBuckets,
	}, []string{"type", "operation", "rejected"})
}

// Admission returns chain, timing its mutating ("admit") and validating
// ("validate") steps in apiserver_admission_step_admission_duration_seconds
// by operation and whether the step rejected the request.
func (m *Metrics) Admission(chain admission.Interface) admission.Interface {
	if m == nil || chain == nil {
		return chain
	}
	return &timedAdmission{chain: chain, steps: newCache(func(k admissionKey) prometheus.Observer {
		return m.admissionStep.WithLabelValues(k.step, k.operation, strconv.FormatBool(k.rejected))
	})}
}

type admissionKey struct {
	step, operation string
	rejected        bool
}

type timedAdmission struct {
	chain admission.Interface
	steps cache[admissionKey, prometheus.Observer]
}

var _ admission.Interface = (*timedAdmission)(nil)

func (t *timedAdmission) Admit(ctx context.Context, a *admission.Attributes) error {
	start := time.Now()
	err := t.chain.Admit(ctx, a)
	t.observe("admit", a, err, start)
	return err
}

func (t *timedAdmission) Validate(ctx context.Context, a *admission.Attributes) error {
	start := time.Now()
	err := t.chain.Validate(ctx, a)
	t.observe("validate", a, err, start)
	return err
}

func (t *timedAdmission) observe(step string, a *admission.Attributes, err error, start time.Time) {
	t.steps.get(admissionKey{step, string(a.Operation), err != nil}).Observe(time.Since(start).Seconds())
}
