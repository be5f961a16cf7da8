// Package runtimeclass is the REST storage of node.k8s.io/v1 runtime
// classes: their strategy, table and generic store.
package runtimeclass

import (
	"context"

	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/node/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how runtime classes are written: cluster-scoped, no
// generation, the handler immutable. As upstream, a PUT may create one and
// every update must name the resourceVersion it read.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the runtime class strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// NamespaceScoped is false: runtime classes are cluster-scoped.
func (Strategy) NamespaceScoped() bool { return false }

// AllowCreateOnUpdate is true for runtime classes.
func (Strategy) AllowCreateOnUpdate() bool { return true }

// AllowUnconditionalUpdate is false for runtime classes.
func (Strategy) AllowUnconditionalUpdate() bool { return false }

// Validate checks a new runtime class.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateRuntimeClass(obj.(*nodev1.RuntimeClass))
}

// ValidateUpdate checks the new object as on create, then the update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	rc := obj.(*nodev1.RuntimeClass)
	errs := validation.ValidateRuntimeClass(rc)
	return append(errs, validation.ValidateRuntimeClassUpdate(rc, old.(*nodev1.RuntimeClass))...)
}
