// Package csistoragecapacity is the REST storage of storage.k8s.io/v1
// CSIStorageCapacities: namespaced reports of the capacity a CSI driver
// offers for a storage class in a topology segment.
package csistoragecapacity

import (
	"context"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/storage/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy is rest.DefaultStrategy with CSIStorageCapacity validation.
type Strategy struct {
	rest.DefaultStrategy
}

var _ rest.RESTCreateStrategy = Strategy{}

// NewStrategy returns the strategy; typer is the scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// Validate checks a new capacity report.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateCSIStorageCapacity(obj.(*storagev1.CSIStorageCapacity))
}

// ValidateUpdate checks an update: topology and class are immutable.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateCSIStorageCapacityUpdate(obj.(*storagev1.CSIStorageCapacity), old.(*storagev1.CSIStorageCapacity))
}
