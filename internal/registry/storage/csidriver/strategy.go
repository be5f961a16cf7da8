// Package csidriver is the REST storage of storage.k8s.io/v1 CSI drivers:
// a cluster-scoped registration of a CSI driver and how kubelet should
// treat its volumes.
package csidriver

import (
	"context"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/storage/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy is rest.DefaultStrategy made cluster-scoped, with CSI driver
// validation and upstream's generation rule.
type Strategy struct {
	rest.DefaultStrategy
}

var _ rest.RESTCreateStrategy = Strategy{}

// NewStrategy returns the CSI driver strategy; typer is the scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// NamespaceScoped is false.
func (Strategy) NamespaceScoped() bool { return false }

// PrepareForUpdate bumps the generation when a field kubelet must act on
// again changes: tokenRequests or requiresRepublish.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	d, oldD := obj.(*storagev1.CSIDriver), old.(*storagev1.CSIDriver)
	d.Generation = oldD.Generation
	if !equality.Semantic.DeepEqual(d.Spec.TokenRequests, oldD.Spec.TokenRequests) ||
		!equality.Semantic.DeepEqual(d.Spec.RequiresRepublish, oldD.Spec.RequiresRepublish) {
		d.Generation++
	}
}

// Validate checks a new CSI driver.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateCSIDriver(obj.(*storagev1.CSIDriver))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateCSIDriverUpdate(obj.(*storagev1.CSIDriver), old.(*storagev1.CSIDriver))
}
