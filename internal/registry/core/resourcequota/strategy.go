// Package resourcequota is the REST storage of core/v1 resource quotas:
// the strategies of the main resource and of resourcequotas/status, the
// table kubectl prints, and the store.
package resourcequota

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/core/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how quotas are written through the main resource: the
// quota controller owns status. Quotas have no generation upstream.
type Strategy struct {
	rest.DefaultStrategy
}

// StatusStrategy is the update strategy of resourcequotas/status.
type StatusStrategy struct {
	Strategy
}

var (
	_ generic.ResourceStrategy = Strategy{}
	_ rest.RESTUpdateStrategy  = StatusStrategy{}
	_ rest.ResetFieldsStrategy = Strategy{}
	_ rest.ResetFieldsStrategy = StatusStrategy{}
)

// NewStrategy returns the quota strategy; typer is the server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// GetResetFields: main-resource writes ignore status.
func (Strategy) GetResetFields() map[string]struct{} { return map[string]struct{}{"status": {}} }

// PrepareForCreate clears status.
func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	rest.ResetStatus(obj)
}

// PrepareForUpdate keeps the stored status.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	rest.CopyField(obj, old, "Status")
}

// Validate checks a new quota.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateResourceQuota(obj.(*corev1.ResourceQuota))
}

// ValidateUpdate checks the quota as on create and that scopes stay.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	q := obj.(*corev1.ResourceQuota)
	errs := validation.ValidateResourceQuota(q)
	return append(errs, validation.ValidateResourceQuotaUpdate(q, old.(*corev1.ResourceQuota))...)
}

// GetResetFields: status writes ignore spec.
func (StatusStrategy) GetResetFields() map[string]struct{} { return map[string]struct{}{"spec": {}} }

// PrepareForUpdate keeps the stored spec.
func (StatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	rest.CopyField(obj, old, "Spec")
}

// ValidateUpdate checks a status write.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateResourceQuotaStatusUpdate(obj.(*corev1.ResourceQuota), old.(*corev1.ResourceQuota))
}

// GetAttrs returns a quota's labels and its metadata fields.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	return generic.DefaultNamespaceScopedAttr(obj)
}
