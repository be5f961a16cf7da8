package printers

import (
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LeaseTable prints NAME HOLDER AGE.
func LeaseTable() *Table[*coordinationv1.Lease] {
	columns := []metav1.TableColumnDefinition{
		NameColumn(),
		{Name: "Holder", Type: "string", Description: coordinationv1.LeaseSpec{}.SwaggerDoc()["holderIdentity"]},
		AgeColumn(),
	}
	return New(columns, func(l *coordinationv1.Lease, now time.Time) []any {
		holder := ""
		if l.Spec.HolderIdentity != nil {
			holder = *l.Spec.HolderIdentity
		}
		return []any{l.Name, holder, Age(l.CreationTimestamp, now)}
	})
}
