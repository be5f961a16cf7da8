package volumeattributesclass

import (
	"time"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// isDefaultAnnotation marks the default volume attributes class.
const isDefaultAnnotation = "storage.kubernetes.io/is-default-class"

// Table prints NAME DRIVERNAME AGE.
func Table() *printers.Table[*storagev1.VolumeAttributesClass] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "DriverName", Type: "string", Description: storagev1.VolumeAttributesClass{}.SwaggerDoc()["driverName"]},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(vac *storagev1.VolumeAttributesClass, now time.Time) []any {
		name := vac.Name
		if vac.Annotations[isDefaultAnnotation] == "true" {
			name += " (default)"
		}
		return []any{name, vac.DriverName, printers.Age(vac.CreationTimestamp, now)}
	})
}
