package resourceclaim

import (
	"strings"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME STATE AGE.
func Table() *printers.Table[*resourcev1.ResourceClaim] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "State", Type: "string", Description: "A summary of the current state (allocated, pending, reserved, etc.)."},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(c *resourcev1.ResourceClaim, now time.Time) []any {
		return []any{c.Name, state(c), printers.Age(c.CreationTimestamp, now)}
	})
}

// state is "pending", "allocated" or "allocated,reserved", led by
// "deleted" once deletion started.
func state(c *resourcev1.ResourceClaim) string {
	var states []string
	if c.DeletionTimestamp != nil {
		states = append(states, "deleted")
	}
	switch {
	case c.Status.Allocation != nil:
		states = append(states, "allocated")
		if len(c.Status.ReservedFor) > 0 {
			states = append(states, "reserved")
		}
	case c.DeletionTimestamp == nil:
		states = append(states, "pending")
	}
	return strings.Join(states, ",")
}
