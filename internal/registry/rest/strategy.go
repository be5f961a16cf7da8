package rest

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// RESTCreateStrategy says how a resource is created: what the server sets,
// and how the object is validated. Validate covers the whole object,
// ObjectMeta included, because name rules differ between resources; the
// generic store only fills server-owned metadata (uid, timestamps,
// generateName, namespace from the request).
type RESTCreateStrategy interface {
	runtime.ObjectTyper
	// NamespaceScoped is true for namespaced resources.
	NamespaceScoped() bool
	// PrepareForCreate clears what users may not set on create (status,
	// generation) and fills server-owned fields.
	PrepareForCreate(ctx context.Context, obj runtime.Object)
	// Validate returns the resource-specific errors (spec, data, ...).
	Validate(ctx context.Context, obj runtime.Object) field.ErrorList
	// WarningsOnCreate returns warnings for the Warning header.
	WarningsOnCreate(ctx context.Context, obj runtime.Object) []string
	// Canonicalize normalizes the object after validation.
	Canonicalize(obj runtime.Object)
}

// RESTUpdateStrategy says how a resource is updated.
type RESTUpdateStrategy interface {
	runtime.ObjectTyper
	NamespaceScoped() bool
	// AllowCreateOnUpdate lets PUT create a missing object.
	AllowCreateOnUpdate() bool
	// PrepareForUpdate copies what must not change from old (status on a
	// main-resource update, spec on a status update) and bumps generation.
	PrepareForUpdate(ctx context.Context, obj, old runtime.Object)
	ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList
	WarningsOnUpdate(ctx context.Context, obj, old runtime.Object) []string
	Canonicalize(obj runtime.Object)
	// AllowUnconditionalUpdate lets a PUT without resourceVersion through.
	AllowUnconditionalUpdate() bool
}

// RESTDeleteStrategy says how a resource is deleted.
type RESTDeleteStrategy interface {
	runtime.ObjectTyper
}

// ResetFieldsStrategy lists the field paths a (sub)resource's writes ignore;
// used later by server-side apply.
type ResetFieldsStrategy interface {
	GetResetFields() map[string]struct{}
}
