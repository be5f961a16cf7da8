// Package persistentvolume is the REST storage of core/v1 persistent
// volumes: the strategies of the main resource and of
// persistentvolumes/status, and the table kubectl prints.
package persistentvolume

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/core/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how persistent volumes are written through the main
// resource: cluster-scoped, status owned by the binder. now stamps
// status.lastPhaseTransitionTime.
type Strategy struct {
	rest.DefaultStrategy
	now func() time.Time
}

// StatusStrategy is the update strategy of persistentvolumes/status.
type StatusStrategy struct {
	Strategy
}

var (
	_ generic.ResourceStrategy = Strategy{}
	_ rest.RESTUpdateStrategy  = StatusStrategy{}
	_ rest.ResetFieldsStrategy = Strategy{}
	_ rest.ResetFieldsStrategy = StatusStrategy{}
)

// NewStrategy returns the persistent volume strategy; typer is the
// server's scheme and now the clock of phase transitions.
func NewStrategy(typer runtime.ObjectTyper, now func() time.Time) Strategy {
	return Strategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}, now: now}
}

func (s Strategy) timestamp() *metav1.Time {
	t := metav1.NewTime(s.now())
	return &t
}

// NamespaceScoped is false: persistent volumes are cluster-scoped.
func (Strategy) NamespaceScoped() bool { return false }

// GetResetFields: main-resource writes ignore status.
func (Strategy) GetResetFields() map[string]struct{} { return map[string]struct{}{"status": {}} }

// PrepareForCreate starts the volume Pending, stamped now.
func (s Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	pv := obj.(*corev1.PersistentVolume)
	pv.Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumePending, LastPhaseTransitionTime: s.timestamp()}
}

// PrepareForUpdate keeps the stored status.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*corev1.PersistentVolume).Status = old.(*corev1.PersistentVolume).Status
}

// Validate checks a new volume.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidatePersistentVolume(obj.(*corev1.PersistentVolume))
}

// ValidateUpdate checks the volume and its immutable fields.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidatePersistentVolumeUpdate(obj.(*corev1.PersistentVolume), old.(*corev1.PersistentVolume))
}

// WarningsOnCreate warns about deprecated settings.
func (Strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return warnings(obj.(*corev1.PersistentVolume))
}

// WarningsOnUpdate warns about deprecated settings.
func (Strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return warnings(obj.(*corev1.PersistentVolume))
}

func warnings(pv *corev1.PersistentVolume) []string {
	var w []string
	if _, ok := pv.Annotations[corev1.BetaStorageClassAnnotation]; ok {
		w = append(w, fmt.Sprintf("metadata.annotations[%s]: deprecated since v1.8; use \"storageClassName\" attribute instead", corev1.BetaStorageClassAnnotation))
	}
	if pv.Spec.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimRecycle {
		w = append(w, "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.")
	}
	return w
}

// GetResetFields: status writes ignore spec.
func (StatusStrategy) GetResetFields() map[string]struct{} { return map[string]struct{}{"spec": {}} }

// PrepareForUpdate keeps the stored spec and stamps a phase change the
// client did not stamp itself.
func (s StatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	pv, oldPV := obj.(*corev1.PersistentVolume), old.(*corev1.PersistentVolume)
	pv.Spec = oldPV.Spec
	newTime, oldTime := pv.Status.LastPhaseTransitionTime, oldPV.Status.LastPhaseTransitionTime
	switch {
	case pv.Status.Phase == oldPV.Status.Phase && newTime == nil:
		pv.Status.LastPhaseTransitionTime = oldTime
	case pv.Status.Phase != oldPV.Status.Phase && (newTime == nil || newTime.Equal(oldTime)):
		pv.Status.LastPhaseTransitionTime = s.timestamp()
	}
}

// ValidateUpdate checks a status write.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidatePersistentVolumeStatusUpdate(obj.(*corev1.PersistentVolume), old.(*corev1.PersistentVolume))
}

// WarningsOnUpdate returns none for status writes.
func (StatusStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// GetAttrs returns a volume's labels and selectable fields: metadata.name
// and the legacy "name" upstream keeps for old internal callers (field
// selectors accept metadata.name only).
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	pv, ok := obj.(*corev1.PersistentVolume)
	if !ok {
		return nil, nil, fmt.Errorf("not a persistentvolume: %T", obj)
	}
	ls, fs, err := generic.DefaultClusterScopedAttr(pv)
	if err != nil {
		return nil, nil, err
	}
	fs["name"] = pv.Name
	return ls, fs, nil
}
