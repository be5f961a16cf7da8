package metrics

import (
	"context"
	"time"

	"github.com/kapi-dev/kapi/internal/admission"
)

type pluginKey struct {
	name, step, operation string
	rejected              bool
}

// AdmissionPlugin returns plugin p, named name, timing each of its halves
// in apiserver_admission_controller_admission_duration_seconds, as
// upstream times every plugin of the chain. The result implements the
// same halves as p (mutation, validation or both), so the chain treats it
// as it treats p.
func (m *Metrics) AdmissionPlugin(name string, p any) any {
	if m == nil {
		return p
	}
	t := timedPlugin{name: name, ops: m.ops}
	mut, isMut := p.(admission.MutationInterface)
	val, isVal := p.(admission.ValidationInterface)
	switch {
	case isMut && isVal:
		return &timedBoth{timedMutation{t, mut}, timedValidation{t, val}}
	case isMut:
		return &timedMutation{t, mut}
	case isVal:
		return &timedValidation{t, val}
	}
	return p
}

// AdmissionPlugins applies AdmissionPlugin to each plugin of chain, named
// by names (same order).
func (m *Metrics) AdmissionPlugins(names []string, chain admission.Chain) admission.Chain {
	if m == nil || len(names) != len(chain) {
		return chain
	}
	out := make(admission.Chain, len(chain))
	for i, p := range chain {
		out[i] = m.AdmissionPlugin(names[i], p)
	}
	return out
}

type timedPlugin struct {
	name string
	ops  *operations
}

func (t timedPlugin) observe(step string, a *admission.Attributes, err error, start time.Time) {
	t.ops.controllerChildren.get(pluginKey{t.name, step, string(a.Operation), err != nil}).Observe(time.Since(start).Seconds())
}

type timedMutation struct {
	timedPlugin
	p admission.MutationInterface
}

func (t *timedMutation) Admit(ctx context.Context, a *admission.Attributes) error {
	start := time.Now()
	err := t.p.Admit(ctx, a)
	t.observe("admit", a, err, start)
	return err
}

type timedValidation struct {
	timedPlugin
	p admission.ValidationInterface
}

func (t *timedValidation) Validate(ctx context.Context, a *admission.Attributes) error {
	start := time.Now()
	err := t.p.Validate(ctx, a)
	t.observe("validate", a, err, start)
	return err
}

type timedBoth struct {
	timedMutation
	timedValidation
}

var _ admission.Interface = (*timedBoth)(nil)
