// Package priorityclass is the REST storage of scheduling.k8s.io/v1
// priority classes: their strategy, table, a store that refuses to delete
// the system classes, and EnsureSystemPriorityClasses, which creates those
// at start.
package priorityclass

import (
	"context"

	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/scheduling/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how priority classes are written: cluster-scoped, with
// generation 1 on create and value and preemptionPolicy immutable.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the priority class strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// NamespaceScoped is false: priority classes are cluster-scoped.
func (Strategy) NamespaceScoped() bool { return false }

// PrepareForCreate sets generation 1, as upstream.
func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	rest.SetGeneration(obj, 1)
}

// Validate checks a new priority class.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidatePriorityClass(obj.(*schedulingv1.PriorityClass))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidatePriorityClassUpdate(obj.(*schedulingv1.PriorityClass), old.(*schedulingv1.PriorityClass))
}
