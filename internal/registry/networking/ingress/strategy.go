// Package ingress is the REST storage of networking.k8s.io/v1 ingresses
// and their status subresource, where controllers report load-balancer
// addresses.
package ingress

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/networking/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy is rest.SpecStatusStrategy with ingress validation: status is
// dropped on create and kept on update, generation follows the spec.
type Strategy struct {
	rest.SpecStatusStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = StatusStrategy{}
)

// NewStrategy returns the ingress strategy; typer is the scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// Validate checks a new ingress.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateIngressCreate(obj.(*networkingv1.Ingress))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateIngressUpdate(obj.(*networkingv1.Ingress), old.(*networkingv1.Ingress))
}

// StatusStrategy writes ingresses/status: the spec is kept.
type StatusStrategy struct {
	rest.StatusSubresourceStrategy
}

// NewStatusStrategy returns the ingresses/status strategy.
func NewStatusStrategy(typer runtime.ObjectTyper) StatusStrategy {
	return StatusStrategy{rest.StatusSubresourceStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// ValidateUpdate checks the load-balancer status.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateIngressStatusUpdate(obj.(*networkingv1.Ingress), old.(*networkingv1.Ingress))
}
