package resourceclaimtemplate

import (
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME AGE.
func Table() *printers.Table[*resourcev1.ResourceClaimTemplate] {
	columns := []metav1.TableColumnDefinition{printers.NameColumn(), printers.AgeColumn()}
	return printers.New(columns, func(t *resourcev1.ResourceClaimTemplate, now time.Time) []any {
		return []any{t.Name, printers.Age(t.CreationTimestamp, now)}
	})
}
