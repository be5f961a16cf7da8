package runtimeclass

import (
	"time"

	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME HANDLER AGE.
func Table() *printers.Table[*nodev1.RuntimeClass] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		// Upstream describes the column with ObjectMeta's (empty) doc
		// of "handler".
		{Name: "Handler", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["handler"]},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(rc *nodev1.RuntimeClass, now time.Time) []any {
		return []any{rc.Name, rc.Handler, printers.Age(rc.CreationTimestamp, now)}
	})
}
