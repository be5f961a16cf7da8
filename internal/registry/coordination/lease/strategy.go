// Package lease is the REST storage of coordination.k8s.io/v1 leases: its
// strategy and its generic store.
package lease

import (
	"context"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/coordination/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how leases are created, updated and deleted. Leases are
// namespaced, with no warnings, as rest.DefaultStrategy assumes; they
// differ in preparing writes, validation and both update rules.
type Strategy struct {
	rest.DefaultStrategy
	// CoordinatedLeaderElection keeps spec.strategy and
	// spec.preferredHolder. Off, as upstream's feature gate is by default,
	// they are dropped unless the stored lease already has them.
	CoordinatedLeaderElection bool
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the lease strategy; typer is the server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}
}

// PrepareForCreate drops the coordinated leader election fields when that
// feature is off.
func (s Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	if !s.CoordinatedLeaderElection {
		l := obj.(*coordinationv1.Lease)
		l.Spec.Strategy, l.Spec.PreferredHolder = nil, nil
	}
}

// PrepareForUpdate drops those fields too, unless the stored lease has
// them (a lease written while the feature was on stays writable).
func (s Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	if s.CoordinatedLeaderElection {
		return
	}
	l, oldLease := obj.(*coordinationv1.Lease), old.(*coordinationv1.Lease)
	if oldLease.Spec.Strategy == nil {
		l.Spec.Strategy = nil
	}
	if oldLease.Spec.PreferredHolder == nil {
		l.Spec.PreferredHolder = nil
	}
}

// Validate checks a new lease.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateLease(obj.(*coordinationv1.Lease))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateLeaseUpdate(obj.(*coordinationv1.Lease), old.(*coordinationv1.Lease))
}

// AllowCreateOnUpdate is true: leader election clients PUT their lease
// whether or not it exists.
func (Strategy) AllowCreateOnUpdate() bool { return true }

// AllowUnconditionalUpdate is false: a lease update must name the version
// it read, or two candidates could both take the lease.
func (Strategy) AllowUnconditionalUpdate() bool { return false }

// GetAttrs returns a lease's labels and the fields every namespaced
// object can be selected by, metadata.name and metadata.namespace.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	return generic.DefaultNamespaceScopedAttr(obj)
}
