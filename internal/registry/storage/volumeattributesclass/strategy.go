// Package volumeattributesclass is the REST storage of storage.k8s.io/v1
// volume attributes classes: cluster-scoped, mutable-volume parameters for
// one CSI driver, fixed once created.
package volumeattributesclass

import (
	"context"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/storage/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy is rest.DefaultStrategy made cluster-scoped, with validation.
type Strategy struct {
	rest.DefaultStrategy
}

var _ rest.RESTCreateStrategy = Strategy{}

// NewStrategy returns the strategy; typer is the scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// NamespaceScoped is false.
func (Strategy) NamespaceScoped() bool { return false }

// Validate checks a new class.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateVolumeAttributesClass(obj.(*storagev1.VolumeAttributesClass))
}

// ValidateUpdate checks the class as on create, then the fixed fields.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	vac := obj.(*storagev1.VolumeAttributesClass)
	errs := validation.ValidateVolumeAttributesClass(vac)
	return append(errs, validation.ValidateVolumeAttributesClassUpdate(vac, old.(*storagev1.VolumeAttributesClass))...)
}
