package storageclass

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Annotations that mark the default storage class.
const (
	isDefaultAnnotation     = "storageclass.kubernetes.io/is-default-class"
	betaIsDefaultAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
)

// Table prints NAME PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE
// ALLOWVOLUMEEXPANSION AGE; the default class's name says "(default)".
func Table() *printers.Table[*storagev1.StorageClass] {
	doc := storagev1.StorageClass{}.SwaggerDoc()
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Provisioner", Type: "string", Description: doc["provisioner"]},
		{Name: "ReclaimPolicy", Type: "string", Description: doc["reclaimPolicy"]},
		{Name: "VolumeBindingMode", Type: "string", Description: doc["volumeBindingMode"]},
		{Name: "AllowVolumeExpansion", Type: "string", Description: doc["allowVolumeExpansion"]},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(sc *storagev1.StorageClass, now time.Time) []any {
		name := sc.Name
		if sc.Annotations[isDefaultAnnotation] == "true" || sc.Annotations[betaIsDefaultAnnotation] == "true" {
			name += " (default)"
		}
		reclaim := string(corev1.PersistentVolumeReclaimDelete)
		if sc.ReclaimPolicy != nil {
			reclaim = string(*sc.ReclaimPolicy)
		}
		binding := string(storagev1.VolumeBindingImmediate)
		if sc.VolumeBindingMode != nil {
			binding = string(*sc.VolumeBindingMode)
		}
		expansion := sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
		return []any{name, sc.Provisioner, reclaim, binding, expansion, printers.Age(sc.CreationTimestamp, now)}
	})
}
