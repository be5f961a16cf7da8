// Package resourceslice is the REST storage of resource.k8s.io/v1
// resource slices: cluster-scoped lists of the devices a driver offers in
// one pool, selectable by node, driver and pool.
package resourceslice

import (
	"context"
	"fmt"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/resource/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy: generation starts at 1 and grows with every spec change, as
// rest.SpecStatusStrategy does; slices have no status.
type Strategy struct {
	rest.SpecStatusStrategy
}

var _ rest.RESTCreateStrategy = Strategy{}

// NewStrategy returns the slice strategy; typer is the scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// NamespaceScoped is false.
func (Strategy) NamespaceScoped() bool { return false }

// Validate checks a new slice.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateResourceSlice(obj.(*resourcev1.ResourceSlice))
}

// ValidateUpdate checks an update: driver and node are fixed.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateResourceSliceUpdate(obj.(*resourcev1.ResourceSlice), old.(*resourcev1.ResourceSlice))
}

// GetResetFields: nothing is ignored, there is no status.
func (Strategy) GetResetFields() map[string]struct{} { return nil }

// GetAttrs returns a slice's labels and selectable fields: metadata.name,
// spec.nodeName, spec.driver and spec.pool.name.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	s, ok := obj.(*resourcev1.ResourceSlice)
	if !ok {
		return nil, nil, fmt.Errorf("not a resource slice: %T", obj)
	}
	ls, fs, err := generic.DefaultClusterScopedAttr(s)
	if err != nil {
		return nil, nil, err
	}
	nodeName := ""
	if s.Spec.NodeName != nil {
		nodeName = *s.Spec.NodeName
	}
	fs[resourcev1.ResourceSliceSelectorNodeName] = nodeName
	fs[resourcev1.ResourceSliceSelectorDriver] = s.Spec.Driver
	fs[resourcev1.ResourceSliceSelectorPoolName] = s.Spec.Pool.Name
	return ls, fs, nil
}
