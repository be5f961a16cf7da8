// Package statefulset is the REST storage of apps/v1 stateful sets: the
// strategies of the resource and of its status, the table, and the
// storage with its status and scale subresources.
package statefulset

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/apps/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how stateful sets are created and updated: status is the
// controller's, generation counts spec changes (rest.SpecStatusStrategy).
type Strategy struct {
	rest.SpecStatusStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the stateful set strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// Validate checks a new stateful set.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateStatefulSet(obj.(*appsv1.StatefulSet))
}

// ValidateUpdate checks an update: only some spec fields may change.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateStatefulSetUpdate(obj.(*appsv1.StatefulSet), old.(*appsv1.StatefulSet))
}

// StatusStrategy is the update strategy of statefulsets/status: spec is
// kept, status is taken.
type StatusStrategy struct {
	rest.StatusSubresourceStrategy
}

// NewStatusStrategy returns the status strategy; typer is the server's
// scheme.
func NewStatusStrategy(typer runtime.ObjectTyper) StatusStrategy {
	return StatusStrategy{rest.StatusSubresourceStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// Validate is never called: the status subresource does not create.
func (StatusStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate checks the new status.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateStatefulSetStatusUpdate(obj.(*appsv1.StatefulSet), old.(*appsv1.StatefulSet))
}
