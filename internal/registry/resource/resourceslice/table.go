package resourceslice

import (
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME NODE DRIVER POOL AGE.
func Table() *printers.Table[*resourcev1.ResourceSlice] {
	spec := resourcev1.ResourceSliceSpec{}.SwaggerDoc()
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Node", Type: "string", Description: spec["nodeName"]},
		{Name: "Driver", Type: "string", Description: spec["driver"]},
		{Name: "Pool", Type: "string", Description: resourcev1.ResourcePool{}.SwaggerDoc()["name"]},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(s *resourcev1.ResourceSlice, now time.Time) []any {
		node := ""
		if s.Spec.NodeName != nil {
			node = *s.Spec.NodeName
		}
		return []any{s.Name, node, s.Spec.Driver, s.Spec.Pool.Name, printers.Age(s.CreationTimestamp, now)}
	})
}
