// Package csinode is the REST storage of storage.k8s.io/v1 CSINodes: the
// CSI drivers kubelet registered on one node, named after the node.
package csinode

import (
	"context"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/storage/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy is rest.DefaultStrategy made cluster-scoped, with CSINode
// validation. status.storageHealth belongs to an alpha feature that kapi
// does not enable: it is dropped on create and kept as stored on update.
type Strategy struct {
	rest.DefaultStrategy
}

var _ rest.RESTCreateStrategy = Strategy{}

// NewStrategy returns the CSINode strategy; typer is the scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// NamespaceScoped is false.
func (Strategy) NamespaceScoped() bool { return false }

// PrepareForCreate drops the status of the disabled feature.
func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*storagev1.CSINode).Status = storagev1.CSINodeStatus{}
}

// PrepareForUpdate keeps the stored status.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*storagev1.CSINode).Status = old.(*storagev1.CSINode).Status
}

// Validate checks a new CSINode.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateCSINode(obj.(*storagev1.CSINode))
}

// ValidateUpdate checks an update: registered drivers do not change.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateCSINodeUpdate(obj.(*storagev1.CSINode), old.(*storagev1.CSINode))
}
