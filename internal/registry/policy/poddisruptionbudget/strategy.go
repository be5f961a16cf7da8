// Package poddisruptionbudget is the REST storage of policy/v1
// PodDisruptionBudgets: the strategy (status reset, generation), the
// status subresource the eviction API writes through, and the table.
package poddisruptionbudget

import (
	"context"

	policyv1 "k8s.io/api/policy/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/policy/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how budgets are written: rest.SpecStatusStrategy with
// budget validation, and updates must name the version they read.
type Strategy struct {
	rest.SpecStatusStrategy
}

var (
	_ rest.RESTCreateStrategy  = Strategy{}
	_ rest.RESTUpdateStrategy  = Strategy{}
	_ rest.ResetFieldsStrategy = Strategy{}
)

// NewStrategy returns the budget strategy; typer is the server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// Validate checks a new budget.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidatePodDisruptionBudget(obj.(*policyv1.PodDisruptionBudget), validation.Options{})
}

// ValidateUpdate checks an update; a stored selector newer rules reject
// stays accepted.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	oldPDB := old.(*policyv1.PodDisruptionBudget)
	opts := validation.Options{AllowInvalidLabelValueInSelector: metav1validation.LabelSelectorHasInvalidLabelValue(oldPDB.Spec.Selector)}
	return validation.ValidatePodDisruptionBudget(obj.(*policyv1.PodDisruptionBudget), opts)
}

// AllowUnconditionalUpdate is false: the disruption controller and
// evictions race on the status; writes must carry a resourceVersion.
func (Strategy) AllowUnconditionalUpdate() bool { return false }

// StatusStrategy writes poddisruptionbudgets/status: the spec is kept.
type StatusStrategy struct {
	rest.StatusSubresourceStrategy
}

// NewStatusStrategy returns the strategy of the status subresource.
func NewStatusStrategy(typer runtime.ObjectTyper) StatusStrategy {
	return StatusStrategy{rest.StatusSubresourceStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// ValidateUpdate checks the status write.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	return validation.ValidatePodDisruptionBudgetStatusUpdate(&obj.(*policyv1.PodDisruptionBudget).Status, field.NewPath("status"))
}

// AllowUnconditionalUpdate is false, as for the main resource.
func (StatusStrategy) AllowUnconditionalUpdate() bool { return false }
