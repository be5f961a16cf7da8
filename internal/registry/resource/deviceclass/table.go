package deviceclass

import (
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME AGE.
func Table() *printers.Table[*resourcev1.DeviceClass] {
	columns := []metav1.TableColumnDefinition{printers.NameColumn(), printers.AgeColumn()}
	return printers.New(columns, func(dc *resourcev1.DeviceClass, now time.Time) []any {
		return []any{dc.Name, printers.Age(dc.CreationTimestamp, now)}
	})
}
