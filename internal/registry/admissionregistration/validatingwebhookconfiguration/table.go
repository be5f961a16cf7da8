package validatingwebhookconfiguration

import (
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME WEBHOOKS AGE.
func Table() *printers.Table[*admissionregistrationv1.ValidatingWebhookConfiguration] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Webhooks", Type: "integer", Description: "Webhooks indicates the number of webhooks registered in this configuration"},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(c *admissionregistrationv1.ValidatingWebhookConfiguration, now time.Time) []any {
		return []any{c.Name, int64(len(c.Webhooks)), printers.Age(c.CreationTimestamp, now)}
	})
}
