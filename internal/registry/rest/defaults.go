package rest

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
)

// DefaultStrategy holds what most resources' strategies do alike. A
// resource's strategy embeds it, adds Validate and ValidateUpdate, and
// defines only the methods where the resource differs; with those it is a
// RESTCreateStrategy, RESTUpdateStrategy and RESTDeleteStrategy.
type DefaultStrategy struct {
	runtime.ObjectTyper
}

// NamespaceScoped is true: the objects live in namespaces.
func (DefaultStrategy) NamespaceScoped() bool { return true }

// PrepareForCreate changes nothing: the resource has no status and no
// server-set fields.
func (DefaultStrategy) PrepareForCreate(context.Context, runtime.Object) {}

// PrepareForUpdate changes nothing: every field the user sends is kept.
func (DefaultStrategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}

// WarningsOnCreate returns none.
func (DefaultStrategy) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }

// WarningsOnUpdate returns none.
func (DefaultStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// Canonicalize changes nothing: the validated object is stored as it is.
func (DefaultStrategy) Canonicalize(runtime.Object) {}

// AllowCreateOnUpdate is false: a PUT to a missing object is a 404.
func (DefaultStrategy) AllowCreateOnUpdate() bool { return false }

// AllowUnconditionalUpdate is true: a PUT without resourceVersion
// overwrites.
func (DefaultStrategy) AllowUnconditionalUpdate() bool { return true }
