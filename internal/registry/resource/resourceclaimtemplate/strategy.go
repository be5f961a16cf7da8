// Package resourceclaimtemplate is the REST storage of resource.k8s.io/v1
// resource claim templates: namespaced, immutable blueprints of the claims
// made for each pod that refers to them.
package resourceclaimtemplate

import (
	"context"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/resource/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy is rest.DefaultStrategy with claim template validation.
type Strategy struct {
	rest.DefaultStrategy
}

var _ rest.RESTCreateStrategy = Strategy{}

// NewStrategy returns the strategy; typer is the scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// Validate checks a new template.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateResourceClaimTemplate(obj.(*resourcev1.ResourceClaimTemplate))
}

// ValidateUpdate checks an update: the spec is immutable.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateResourceClaimTemplateUpdate(obj.(*resourcev1.ResourceClaimTemplate), old.(*resourcev1.ResourceClaimTemplate))
}
