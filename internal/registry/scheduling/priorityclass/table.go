package priorityclass

import (
	"time"

	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY.
func Table() *printers.Table[*schedulingv1.PriorityClass] {
	doc := schedulingv1.PriorityClass{}.SwaggerDoc()
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Value", Type: "integer", Description: doc["value"]},
		{Name: "Global-Default", Type: "boolean", Description: doc["globalDefault"]},
		printers.AgeColumn(),
		{Name: "PreemptionPolicy", Type: "string", Description: doc["preemptionPolicy"]},
	}
	return printers.New(columns, func(pc *schedulingv1.PriorityClass, now time.Time) []any {
		policy := ""
		if pc.PreemptionPolicy != nil {
			policy = string(*pc.PreemptionPolicy)
		}
		return []any{pc.Name, int64(pc.Value), pc.GlobalDefault, printers.Age(pc.CreationTimestamp, now), policy}
	})
}
