package persistentvolume

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM
// STORAGECLASS VOLUMEATTRIBUTESCLASS REASON AGE, and VOLUMEMODE with -o
// wide.
func Table() *printers.Table[*corev1.PersistentVolume] {
	spec, status := corev1.PersistentVolumeSpec{}.SwaggerDoc(), corev1.PersistentVolumeStatus{}.SwaggerDoc()
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Capacity", Type: "string", Description: spec["capacity"]},
		{Name: "Access Modes", Type: "string", Description: spec["accessModes"]},
		{Name: "Reclaim Policy", Type: "string", Description: spec["persistentVolumeReclaimPolicy"]},
		{Name: "Status", Type: "string", Description: status["phase"]},
		{Name: "Claim", Type: "string", Description: spec["claimRef"]},
		{Name: "StorageClass", Type: "string", Description: "StorageClass of the pv"},
		{Name: "VolumeAttributesClass", Type: "string", Description: "VolumeAttributesClass of the pv"},
		{Name: "Reason", Type: "string", Description: status["reason"]},
		printers.AgeColumn(),
		{Name: "VolumeMode", Type: "string", Priority: 1, Description: spec["volumeMode"]},
	}
	return printers.New(columns, func(pv *corev1.PersistentVolume, now time.Time) []any {
		claim := ""
		if ref := pv.Spec.ClaimRef; ref != nil {
			claim = ref.Namespace + "/" + ref.Name
		}
		phase := string(pv.Status.Phase)
		if pv.DeletionTimestamp != nil {
			phase = "Terminating"
		}
		capacity := pv.Spec.Capacity[corev1.ResourceStorage]
		return []any{
			pv.Name, capacity.String(), AccessModesString(pv.Spec.AccessModes), string(pv.Spec.PersistentVolumeReclaimPolicy),
			phase, claim, className(pv.Annotations, pv.Spec.StorageClassName), OrUnset(pv.Spec.VolumeAttributesClassName),
			pv.Status.Reason, printers.Age(pv.CreationTimestamp, now), VolumeModeString(pv.Spec.VolumeMode),
		}
	})
}

// AccessModesString abbreviates access modes as kubectl does, in a fixed
// order and without repeats: "RWO,ROX,RWX,RWOP".
func AccessModesString(modes []corev1.PersistentVolumeAccessMode) string {
	var out []string
	for _, m := range []struct {
		mode  corev1.PersistentVolumeAccessMode
		short string
	}{
		{corev1.ReadWriteOnce, "RWO"}, {corev1.ReadOnlyMany, "ROX"}, {corev1.ReadWriteMany, "RWX"}, {corev1.ReadWriteOncePod, "RWOP"},
	} {
		for _, have := range modes {
			if have == m.mode {
				out = append(out, m.short)
				break
			}
		}
	}
	return strings.Join(out, ",")
}

// className is the beta storage-class annotation when present, else the
// spec's class.
func className(annotations map[string]string, spec string) string {
	if c, ok := annotations[corev1.BetaStorageClassAnnotation]; ok {
		return c
	}
	return spec
}

// ClaimClassName is className for claims, whose spec class is a pointer.
func ClaimClassName(pvc *corev1.PersistentVolumeClaim) string {
	spec := ""
	if pvc.Spec.StorageClassName != nil {
		spec = *pvc.Spec.StorageClassName
	}
	return className(pvc.Annotations, spec)
}

// OrUnset prints an optional class name, "<unset>" when absent or empty.
func OrUnset(s *string) string {
	if s == nil || *s == "" {
		return "<unset>"
	}
	return *s
}

// VolumeModeString prints a volume mode, "<unset>" when absent.
func VolumeModeString(m *corev1.PersistentVolumeMode) string {
	if m == nil {
		return "<unset>"
	}
	return string(*m)
}
