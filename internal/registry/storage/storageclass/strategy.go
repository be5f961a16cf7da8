// Package storageclass is the REST storage of storage.k8s.io/v1 storage
// classes: a cluster-scoped resource whose provisioner, parameters and
// policies are fixed once created.
package storageclass

import (
	"context"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/storage/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy is rest.DefaultStrategy made cluster-scoped, with storage
// class validation.
type Strategy struct {
	rest.DefaultStrategy
}

var _ rest.RESTCreateStrategy = Strategy{}

// NewStrategy returns the storage class strategy; typer is the scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// NamespaceScoped is false.
func (Strategy) NamespaceScoped() bool { return false }

// Validate checks a new storage class.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateStorageClass(obj.(*storagev1.StorageClass))
}

// ValidateUpdate checks the class as on create, then what may not change.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	sc := obj.(*storagev1.StorageClass)
	errs := validation.ValidateStorageClass(sc)
	return append(errs, validation.ValidateStorageClassUpdate(sc, old.(*storagev1.StorageClass))...)
}
