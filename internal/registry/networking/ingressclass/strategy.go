// Package ingressclass is the REST storage of networking.k8s.io/v1
// ingress classes: cluster-scoped, naming the controller that implements
// the class.
package ingressclass

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/networking/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy: generation starts at 1 and grows with every spec change, as
// rest.SpecStatusStrategy does; ingress classes have no status.
type Strategy struct {
	rest.SpecStatusStrategy
}

var _ rest.RESTCreateStrategy = Strategy{}

// NewStrategy returns the ingress class strategy; typer is the scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// NamespaceScoped is false.
func (Strategy) NamespaceScoped() bool { return false }

// Validate checks a new ingress class.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateIngressClass(obj.(*networkingv1.IngressClass))
}

// ValidateUpdate checks an update: the controller is immutable.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateIngressClassUpdate(obj.(*networkingv1.IngressClass), old.(*networkingv1.IngressClass))
}

// GetResetFields: nothing is ignored, there is no status.
func (Strategy) GetResetFields() map[string]struct{} { return nil }
