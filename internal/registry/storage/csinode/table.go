package csinode

import (
	"time"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME DRIVERS AGE.
func Table() *printers.Table[*storagev1.CSINode] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Drivers", Type: "integer", Description: "Drivers indicates the number of CSI drivers registered on the node"},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(n *storagev1.CSINode, now time.Time) []any {
		return []any{n.Name, int64(len(n.Spec.Drivers)), printers.Age(n.CreationTimestamp, now)}
	})
}
