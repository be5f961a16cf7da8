// Package storageobjectinuseprotection is the StorageObjectInUseProtection
// admission plugin: new PersistentVolumes, PersistentVolumeClaims and
// VolumeAttributesClasses get the protection finalizer that the
// protection controllers remove once nothing uses them.
package storageobjectinuseprotection

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "StorageObjectInUseProtection"

// The finalizers, as upstream names them.
const (
	PVProtectionFinalizer  = "kubernetes.io/pv-protection"
	PVCProtectionFinalizer = "kubernetes.io/pvc-protection"
	VACProtectionFinalizer = "kubernetes.io/vac-protection"
)

var finalizers = map[schema.GroupResource]string{
	{Resource: "persistentvolumes"}:                                PVProtectionFinalizer,
	{Resource: "persistentvolumeclaims"}:                           PVCProtectionFinalizer,
	{Group: "storage.k8s.io", Resource: "volumeattributesclasses"}: VACProtectionFinalizer,
}

// Plugin adds the protection finalizers.
type Plugin struct{}

var _ admission.MutationInterface = Plugin{}

// Admit adds the finalizer of the object's resource on create, once.
func (Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	f, ok := finalizers[a.Resource.GroupResource()]
	if !ok || a.Operation != admission.Create || a.Subresource != "" || a.Object == nil {
		return nil
	}
	obj, err := meta.Accessor(a.Object)
	if err != nil {
		return nil
	}
	if fs := obj.GetFinalizers(); !slices.Contains(fs, f) {
		obj.SetFinalizers(append(fs, f))
	}
	return nil
}
