// Package configmap is the REST storage of core/v1 configmaps: its
// strategy (validation, immutability) and its generic store.
package configmap

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/core/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how configmaps are created, updated and deleted.
type Strategy struct {
	runtime.ObjectTyper
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the configmap strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{ObjectTyper: typer}
}

// NamespaceScoped is true: configmaps live in namespaces.
func (Strategy) NamespaceScoped() bool { return true }

// PrepareForCreate changes nothing: configmaps have no status and no
// server-set fields.
func (Strategy) PrepareForCreate(context.Context, runtime.Object) {}

// PrepareForUpdate changes nothing.
func (Strategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}

// Validate checks a new configmap.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateConfigMap(obj.(*corev1.ConfigMap))
}

// ValidateUpdate checks an update, including immutability.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateConfigMapUpdate(obj.(*corev1.ConfigMap), old.(*corev1.ConfigMap))
}

// WarningsOnCreate returns none.
func (Strategy) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }

// WarningsOnUpdate returns none.
func (Strategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// Canonicalize changes nothing.
func (Strategy) Canonicalize(runtime.Object) {}

// AllowCreateOnUpdate is false: a PUT to a missing configmap is a 404.
func (Strategy) AllowCreateOnUpdate() bool { return false }

// AllowUnconditionalUpdate is true: a PUT without resourceVersion
// overwrites.
func (Strategy) AllowUnconditionalUpdate() bool { return true }

// GetAttrs returns a configmap's labels and the fields every namespaced
// object can be selected by, metadata.name and metadata.namespace.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	return generic.DefaultNamespaceScopedAttr(obj)
}
