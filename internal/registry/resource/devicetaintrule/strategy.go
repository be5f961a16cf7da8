// Package devicetaintrule is the REST storage of resource.k8s.io/v1
// device taint rules and their status subresource: one taint applied to
// every device the selector matches, as if the driver had published it.
package devicetaintrule

import (
	"context"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/resource/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy writes the main resource: cluster-scoped, status owned by the
// eviction controller, generation bumped on spec changes, and the taint's
// timeAdded stamped by the server.
type Strategy struct {
	rest.SpecStatusStrategy
	// Now stamps taint times; nil means time.Now.
	Now func() time.Time
}

// StatusStrategy writes devicetaintrules/status.
type StatusStrategy struct {
	Strategy
}

var (
	_ rest.RESTCreateStrategy  = Strategy{}
	_ rest.ResetFieldsStrategy = Strategy{}
	_ rest.RESTUpdateStrategy  = StatusStrategy{}
	_ rest.ResetFieldsStrategy = StatusStrategy{}
)

// NewStrategy returns the strategy; typer is the scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{SpecStatusStrategy: rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// NamespaceScoped is false.
func (Strategy) NamespaceScoped() bool { return false }

// PrepareForCreate drops status, sets generation 1 and stamps a taint
// without a time.
func (s Strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.SpecStatusStrategy.PrepareForCreate(ctx, obj)
	taint := &obj.(*resourcev1.DeviceTaintRule).Spec.Taint
	if taint.TimeAdded == nil {
		taint.TimeAdded = s.now()
	}
}

// PrepareForUpdate keeps status, bumps generation on spec changes and
// stamps the taint when it has no time, or when the effect changed but
// the client sent the old time back (the time tells when the effect
// began).
func (s Strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	taint, oldTaint := &obj.(*resourcev1.DeviceTaintRule).Spec.Taint, old.(*resourcev1.DeviceTaintRule).Spec.Taint
	switch {
	case taint.TimeAdded == nil:
		taint.TimeAdded = s.now()
	case taint.Effect != oldTaint.Effect && oldTaint.TimeAdded != nil && taint.TimeAdded.Equal(oldTaint.TimeAdded):
		taint.TimeAdded = s.now()
	}
	s.SpecStatusStrategy.PrepareForUpdate(ctx, obj, old)
}

func (s Strategy) now() *metav1.Time {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	t := metav1.NewTime(now().Truncate(time.Second))
	return &t
}

// Validate checks a new rule.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateDeviceTaintRule(obj.(*resourcev1.DeviceTaintRule))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateDeviceTaintRuleUpdate(obj.(*resourcev1.DeviceTaintRule), old.(*resourcev1.DeviceTaintRule))
}

// PrepareForUpdate keeps the stored spec and the metadata a status write
// may not change.
func (StatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	rule, oldRule := obj.(*resourcev1.DeviceTaintRule), old.(*resourcev1.DeviceTaintRule)
	rule.Spec = oldRule.Spec
	metav1.ResetObjectMetaForStatus(rule, oldRule)
}

// ValidateUpdate checks the conditions.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateDeviceTaintRuleStatusUpdate(obj.(*resourcev1.DeviceTaintRule), old.(*resourcev1.DeviceTaintRule))
}

// GetResetFields: status writes ignore metadata and spec.
func (StatusStrategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"metadata": {}, "spec": {}}
}
