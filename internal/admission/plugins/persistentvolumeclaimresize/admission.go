// Package persistentvolumeclaimresize is the PersistentVolumeClaimResize
// admission plugin: a claim may grow only when it is bound and its
// storage class allows volume expansion.
package persistentvolumeclaimresize

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	storagehelpers "k8s.io/component-helpers/storage/volume"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/forbidden"
	"github.com/kapi-dev/kapi/internal/admission/plugins/readiness"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "PersistentVolumeClaimResize"

// Plugin checks claim expansions.
type Plugin struct {
	classes storagelisters.StorageClassLister
	// Synced, when set, tells whether the classes' cache has listed; a
	// request waits for it as upstream's do.
	Synced func() bool
}

var _ admission.ValidationInterface = (*Plugin)(nil)

// New reads storage classes from classes.
func New(classes storagelisters.StorageClassLister) *Plugin { return &Plugin{classes: classes} }

var claims = schema.GroupResource{Resource: "persistentvolumeclaims"}

// Validate refuses an update that grows the requested storage of a claim
// that is not bound, or whose class does not allow expansion.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Update || a.Resource.GroupResource() != claims || a.Subresource != "" {
		return nil
	}
	pvc, ok1 := a.Object.(*corev1.PersistentVolumeClaim)
	old, ok2 := a.OldObject.(*corev1.PersistentVolumeClaim)
	if !ok1 || !ok2 {
		return nil
	}
	newSize := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	oldSize := old.Spec.Resources.Requests[corev1.ResourceStorage]
	if newSize.Cmp(oldSize) <= 0 {
		return nil
	}
	if old.Status.Phase != corev1.ClaimBound {
		return forbidden.New(a, errors.New("Only bound persistent volume claims can be expanded"))
	}
	if err := readiness.Wait(ctx, a, p.Synced); err != nil {
		return err
	}
	if !p.allowResize(pvc, old) {
		return forbidden.New(a, errors.New("only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize"))
	}
	return nil
}

// allowResize: the claim keeps its class, and the class allows expansion.
func (p *Plugin) allowResize(pvc, old *corev1.PersistentVolumeClaim) bool {
	class := storagehelpers.GetPersistentVolumeClaimClass(pvc)
	if class == "" || class != storagehelpers.GetPersistentVolumeClaimClass(old) {
		return false
	}
	sc, err := p.classes.Get(class)
	if err != nil || sc.AllowVolumeExpansion == nil {
		return false
	}
	return *sc.AllowVolumeExpansion
}
