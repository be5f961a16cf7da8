// Package volumeattachment is the REST storage of storage.k8s.io/v1
// volume attachments and their status subresource. The spec is read-only
// after create; attachers report through volumeattachments/status.
package volumeattachment

import (
	"context"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/storage/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy writes the main resource: cluster-scoped, status dropped on
// create and kept on update. Upstream keeps no generation for it.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy  = Strategy{}
	_ rest.RESTUpdateStrategy  = StatusStrategy{}
	_ rest.ResetFieldsStrategy = StatusStrategy{}
)

// NewStrategy returns the volume attachment strategy; typer is the scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// NamespaceScoped is false.
func (Strategy) NamespaceScoped() bool { return false }

// PrepareForCreate drops the status: attachers set it.
func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*storagev1.VolumeAttachment).Status = storagev1.VolumeAttachmentStatus{}
}

// PrepareForUpdate keeps the stored status.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*storagev1.VolumeAttachment).Status = old.(*storagev1.VolumeAttachment).Status
}

// Validate checks a new volume attachment.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateVolumeAttachment(obj.(*storagev1.VolumeAttachment))
}

// ValidateUpdate checks an update; the spec is immutable.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateVolumeAttachmentUpdate(obj.(*storagev1.VolumeAttachment), old.(*storagev1.VolumeAttachment))
}

// GetResetFields: main-resource writes ignore status.
func (Strategy) GetResetFields() map[string]struct{} { return map[string]struct{}{"status": {}} }

// StatusStrategy writes volumeattachments/status: the spec and the
// metadata a status writer may not change are kept.
type StatusStrategy struct {
	Strategy
}

// PrepareForUpdate keeps the stored spec and metadata.
func (StatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	va, oldVA := obj.(*storagev1.VolumeAttachment), old.(*storagev1.VolumeAttachment)
	va.Spec = oldVA.Spec
	metav1.ResetObjectMetaForStatus(va, oldVA)
}

// GetResetFields: status writes ignore spec and metadata.
func (StatusStrategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"spec": {}, "metadata": {}}
}
