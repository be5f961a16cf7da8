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

// Strategy says how configmaps are created, updated and deleted. Beyond
// validation it keeps every default of rest.DefaultStrategy: configmaps
// are namespaced, have no status and no server-set fields, and a PUT to a
// missing configmap is a 404.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the configmap strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// Validate checks a new configmap.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateConfigMap(obj.(*corev1.ConfigMap))
}

// ValidateUpdate checks an update, including immutability.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateConfigMapUpdate(obj.(*corev1.ConfigMap), old.(*corev1.ConfigMap))
}

// GetAttrs returns a configmap's labels and the fields every namespaced
// object can be selected by, metadata.name and metadata.namespace.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	return generic.DefaultNamespaceScopedAttr(obj)
}
