package csistoragecapacity

import (
	"time"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME STORAGECLASSNAME CAPACITY, without an age, as
// upstream.
func Table() *printers.Table[*storagev1.CSIStorageCapacity] {
	doc := storagev1.CSIStorageCapacity{}.SwaggerDoc()
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "StorageClassName", Type: "string", Description: doc["storageClassName"]},
		{Name: "Capacity", Type: "string", Description: doc["capacity"]},
	}
	return printers.New(columns, func(c *storagev1.CSIStorageCapacity, _ time.Time) []any {
		capacity := "<unset>"
		if c.Capacity != nil {
			capacity = c.Capacity.String()
		}
		return []any{c.Name, c.StorageClassName, capacity}
	})
}
