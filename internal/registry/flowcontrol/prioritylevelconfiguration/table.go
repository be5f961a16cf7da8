package prioritylevelconfiguration

import (
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME TYPE NOMINALCONCURRENCYSHARES QUEUES HANDSIZE
// QUEUELENGTHLIMIT AGE; "<none>" where the level has no such setting.
func Table() *printers.Table[*flowcontrolv1.PriorityLevelConfiguration] {
	queuingDoc := flowcontrolv1.QueuingConfiguration{}.SwaggerDoc()
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Type", Type: "string", Description: flowcontrolv1.PriorityLevelConfigurationSpec{}.SwaggerDoc()["type"]},
		{Name: "NominalConcurrencyShares", Type: "string", Description: flowcontrolv1.LimitedPriorityLevelConfiguration{}.SwaggerDoc()["nominalConcurrencyShares"]},
		{Name: "Queues", Type: "string", Description: queuingDoc["queues"]},
		{Name: "HandSize", Type: "string", Description: queuingDoc["handSize"]},
		{Name: "QueueLengthLimit", Type: "string", Description: queuingDoc["queueLengthLimit"]},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(pl *flowcontrolv1.PriorityLevelConfiguration, now time.Time) []any {
		var shares, queues, handSize, queueLengthLimit any = "<none>", "<none>", "<none>", "<none>"
		if l := pl.Spec.Limited; l != nil {
			if l.NominalConcurrencyShares != nil {
				shares = int64(*l.NominalConcurrencyShares)
			}
			if q := l.LimitResponse.Queuing; q != nil {
				queues, handSize, queueLengthLimit = int64(q.Queues), int64(q.HandSize), int64(q.QueueLengthLimit)
			}
		}
		return []any{pl.Name, string(pl.Spec.Type), shares, queues, handSize, queueLengthLimit, printers.Age(pl.CreationTimestamp, now)}
	})
}
