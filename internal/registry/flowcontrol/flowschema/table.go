package flowschema

import (
	"cmp"
	"context"
	"slices"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME PRIORITYLEVEL MATCHINGPRECEDENCE DISTINGUISHERMETHOD
// AGE MISSINGPL, lists in matching order as upstream: by precedence, then
// name.
type Table struct {
	*printers.Table[*flowcontrolv1.FlowSchema]
}

// NewTable returns the flow schema table.
func NewTable() Table {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "PriorityLevel", Type: "string", Description: flowcontrolv1.PriorityLevelConfigurationReference{}.SwaggerDoc()["name"]},
		{Name: "MatchingPrecedence", Type: "string", Description: flowcontrolv1.FlowSchemaSpec{}.SwaggerDoc()["matchingPrecedence"]},
		{Name: "DistinguisherMethod", Type: "string", Description: flowcontrolv1.FlowSchemaSpec{}.SwaggerDoc()["distinguisherMethod"]},
		printers.AgeColumn(),
		{Name: "MissingPL", Type: "string", Description: "references a broken or non-existent PriorityLevelConfiguration"},
	}
	return Table{printers.New(columns, cells)}
}

func cells(fs *flowcontrolv1.FlowSchema, now time.Time) []any {
	method := "<none>"
	if fs.Spec.DistinguisherMethod != nil {
		method = string(fs.Spec.DistinguisherMethod.Type)
	}
	missing := "?"
	for _, c := range fs.Status.Conditions {
		if c.Type == flowcontrolv1.FlowSchemaConditionDangling {
			missing = string(c.Status)
			break
		}
	}
	return []any{fs.Name, fs.Spec.PriorityLevelConfiguration.Name, int64(fs.Spec.MatchingPrecedence), method, printers.Age(fs.CreationTimestamp, now), missing}
}

// ConvertToTable sorts a list's rows into matching order.
func (t Table) ConvertToTable(ctx context.Context, object, tableOptions runtime.Object) (*metav1.Table, error) {
	if list, ok := object.(*flowcontrolv1.FlowSchemaList); ok {
		sorted := *list
		sorted.Items = slices.Clone(list.Items)
		slices.SortStableFunc(sorted.Items, func(a, b flowcontrolv1.FlowSchema) int {
			return cmp.Or(cmp.Compare(a.Spec.MatchingPrecedence, b.Spec.MatchingPrecedence), cmp.Compare(a.Name, b.Name))
		})
		object = &sorted
	}
	return t.Table.ConvertToTable(ctx, object, tableOptions)
}
