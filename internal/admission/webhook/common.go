package webhook

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/audit"
	"github.com/kapi-dev/kapi/internal/endpoints/warning"
)

// prepared is a matched webhook ready to call: its invocation, the
// encoded objects and the request.
type prepared struct {
	inv *invocation
	enc *encoded
	req *admissionv1.AdmissionRequest
}

// prepare matches h to the request and evaluates its matchConditions.
// It returns nil for a webhook not to call; an error is final (selector
// lookups, dry run) unless handled by the failure policy here.
func (d *dispatcher) prepare(ctx context.Context, h *hook, a *admission.Attributes, v *versioned) (*prepared, error) {
	inv, err := d.matched(ctx, h, a, v)
	if err != nil || inv == nil {
		return nil, err
	}
	enc := v.get(inv.kind)
	if enc.err != nil {
		return nil, apierrors.NewInternalError(enc.err)
	}
	req := newRequest(inv, a, enc)
	if h.conditions != nil && h.err == nil {
		match, err := d.evalConditions(ctx, h, enc, req, v, a)
		if err != nil {
			if h.ignoreFailures() {
				d.logger().WarnContext(ctx, "failed evaluating matchConditions of webhook, ignoring", "webhook", h.name, "err", err)
				return nil, nil
			}
			return nil, apierrors.NewInternalError(fmt.Errorf("failed calling webhook %q: failed to evaluate match conditions: %w", h.name, err))
		}
		if !match {
			return nil, nil
		}
	}
	if err := checkDryRun(h, a); err != nil {
		return nil, err
	}
	return &prepared{inv: inv, enc: enc, req: req}, nil
}

func (d *dispatcher) evalConditions(ctx context.Context, h *hook, enc *encoded, req *admissionv1.AdmissionRequest, v *versioned, a *admission.Attributes) (bool, error) {
	v.mu.Lock()
	vars, err := enc.celVars(req)
	v.mu.Unlock()
	if err != nil {
		return false, err
	}
	return h.conditions.match(ctx, vars, d.opts.Authorizer, a)
}

// record passes a response's warnings to the client and its audit
// annotations, keyed by the webhook's name, to the audit event.
func record(ctx context.Context, h *hook, resp *admissionv1.AdmissionResponse) {
	for _, w := range resp.Warnings {
		if w != "" {
			warning.AddWarning(ctx, "", w)
		}
	}
	for k, v := range resp.AuditAnnotations {
		audit.AddAnnotation(ctx, h.name+"/"+k, v)
	}
}

// failedOpen records, as upstream, that a failing webhook was ignored.
func (d *dispatcher) failedOpen(ctx context.Context, kind string, round, index int, h *hook, err error) {
	d.logger().WarnContext(ctx, "failed calling webhook, failing open", "webhook", h.name, "err", err)
	audit.AddAnnotation(ctx, fmt.Sprintf("failed-open.%s.webhook.admission.k8s.io/round_%d_index_%d", kind, round, index), h.name)
}
