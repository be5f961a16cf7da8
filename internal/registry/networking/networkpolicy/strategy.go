// Package networkpolicy is the REST storage of networking.k8s.io/v1
// network policies.
package networkpolicy

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/networking/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy: generation starts at 1 and grows with every spec change, as
// rest.SpecStatusStrategy does; v1 network policies have no status.
type Strategy struct {
	rest.SpecStatusStrategy
}

var _ rest.RESTCreateStrategy = Strategy{}

// NewStrategy returns the network policy strategy; typer is the scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// Validate checks a new network policy.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateNetworkPolicy(obj.(*networkingv1.NetworkPolicy))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateNetworkPolicyUpdate(obj.(*networkingv1.NetworkPolicy), old.(*networkingv1.NetworkPolicy))
}

// GetResetFields: nothing is ignored, there is no status.
func (Strategy) GetResetFields() map[string]struct{} { return nil }
