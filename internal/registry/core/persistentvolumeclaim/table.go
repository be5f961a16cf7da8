package persistentvolumeclaim

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pv "github.com/kapi-dev/kapi/internal/registry/core/persistentvolume"
	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS
// VOLUMEATTRIBUTESCLASS AGE, and VOLUMEMODE with -o wide. Capacity and
// access modes are the bound volume's, empty until the claim is bound.
func Table() *printers.Table[*corev1.PersistentVolumeClaim] {
	spec, status := corev1.PersistentVolumeClaimSpec{}.SwaggerDoc(), corev1.PersistentVolumeClaimStatus{}.SwaggerDoc()
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Status", Type: "string", Description: status["phase"]},
		{Name: "Volume", Type: "string", Description: spec["volumeName"]},
		{Name: "Capacity", Type: "string", Description: status["capacity"]},
		{Name: "Access Modes", Type: "string", Description: status["accessModes"]},
		{Name: "StorageClass", Type: "string", Description: "StorageClass of the pvc"},
		{Name: "VolumeAttributesClass", Type: "string", Description: "VolumeAttributesClass of the pvc"},
		printers.AgeColumn(),
		{Name: "VolumeMode", Type: "string", Priority: 1, Description: spec["volumeMode"]},
	}
	return printers.New(columns, func(pvc *corev1.PersistentVolumeClaim, now time.Time) []any {
		phase := string(pvc.Status.Phase)
		if pvc.DeletionTimestamp != nil {
			phase = "Terminating"
		}
		capacity, modes := "", ""
		if pvc.Spec.VolumeName != "" {
			q := pvc.Status.Capacity[corev1.ResourceStorage]
			capacity, modes = q.String(), pv.AccessModesString(pvc.Status.AccessModes)
		}
		return []any{
			pvc.Name, phase, pvc.Spec.VolumeName, capacity, modes, pv.ClaimClassName(pvc),
			pv.OrUnset(pvc.Spec.VolumeAttributesClassName), printers.Age(pvc.CreationTimestamp, now),
			pv.VolumeModeString(pvc.Spec.VolumeMode),
		}
	})
}
