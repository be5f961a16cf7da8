package scale

import (
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// table prints NAME DESIRED AVAILABLE AGE.
func table() *printers.Table[*autoscalingv1.Scale] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Desired", Type: "integer", Description: autoscalingv1.ScaleSpec{}.SwaggerDoc()["replicas"]},
		{Name: "Available", Type: "integer", Description: autoscalingv1.ScaleStatus{}.SwaggerDoc()["replicas"]},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(s *autoscalingv1.Scale, now time.Time) []any {
		return []any{s.Name, int64(s.Spec.Replicas), int64(s.Status.Replicas), printers.Age(s.CreationTimestamp, now)}
	})
}
