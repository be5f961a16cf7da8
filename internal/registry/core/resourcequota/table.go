package resourcequota

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME AGE REQUEST LIMIT: "name: used/hard" per resource of
// spec.hard, sorted, limits.* under LIMIT and the rest under REQUEST.
func Table() *printers.Table[*corev1.ResourceQuota] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		printers.AgeColumn(),
		{Name: "Request", Type: "string", Description: "Request represents a minimum amount of cpu/memory that a container may consume."},
		{Name: "Limit", Type: "string", Description: "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node."},
	}
	return printers.New(columns, func(q *corev1.ResourceQuota, now time.Time) []any {
		names := make([]string, 0, len(q.Spec.Hard))
		for name := range q.Spec.Hard {
			names = append(names, string(name))
		}
		slices.Sort(names)
		var requests, limits []string
		for _, name := range names {
			used, hard := q.Status.Used[corev1.ResourceName(name)], q.Spec.Hard[corev1.ResourceName(name)]
			cell := fmt.Sprintf("%s: %s/%s", name, used.String(), hard.String())
			if prefix, _, found := strings.Cut(name, "."); found && prefix == "limits" {
				limits = append(limits, cell)
			} else {
				requests = append(requests, cell)
			}
		}
		return []any{q.Name, printers.Age(q.CreationTimestamp, now), strings.Join(requests, ", "), strings.Join(limits, ", ")}
	})
}
