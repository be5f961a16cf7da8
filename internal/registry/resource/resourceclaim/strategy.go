// Package resourceclaim is the REST storage of resource.k8s.io/v1
// resource claims and their status subresource: the spec is immutable,
// the scheduler and drivers write allocation and reservations through
// resourceclaims/status.
package resourceclaim

import (
	"context"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/resource/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy writes the main resource: namespaced, status dropped on create
// and kept on update. Upstream keeps no generation for claims.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy  = Strategy{}
	_ rest.RESTUpdateStrategy  = StatusStrategy{}
	_ rest.ResetFieldsStrategy = StatusStrategy{}
)

// NewStrategy returns the claim strategy; typer is the scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// PrepareForCreate drops the status.
func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*resourcev1.ResourceClaim).Status = resourcev1.ResourceClaimStatus{}
}

// PrepareForUpdate keeps the stored status.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*resourcev1.ResourceClaim).Status = old.(*resourcev1.ResourceClaim).Status
}

// Validate checks a new claim.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateResourceClaim(obj.(*resourcev1.ResourceClaim))
}

// ValidateUpdate checks an update; the spec is immutable.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateResourceClaimUpdate(obj.(*resourcev1.ResourceClaim), old.(*resourcev1.ResourceClaim))
}

// GetResetFields: main-resource writes ignore status.
func (Strategy) GetResetFields() map[string]struct{} { return map[string]struct{}{"status": {}} }

// StatusStrategy writes resourceclaims/status: spec and the metadata a
// status writer may not change are kept.
type StatusStrategy struct {
	Strategy
}

// PrepareForUpdate keeps the stored spec and metadata.
func (StatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	claim, oldClaim := obj.(*resourcev1.ResourceClaim), old.(*resourcev1.ResourceClaim)
	claim.Spec = oldClaim.Spec
	metav1.ResetObjectMetaForStatus(claim, oldClaim)
}

// ValidateUpdate checks the new status.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateResourceClaimStatusUpdate(obj.(*resourcev1.ResourceClaim), old.(*resourcev1.ResourceClaim))
}

// GetResetFields: status writes ignore spec.
func (StatusStrategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"spec": {}, "metadata": {}}
}
