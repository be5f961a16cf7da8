package replicationcontroller

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME DESIRED CURRENT READY AGE, and with -o wide
// CONTAINERS IMAGES SELECTOR.
func Table() *printers.Table[*corev1.ReplicationController] {
	spec, status := corev1.ReplicationControllerSpec{}.SwaggerDoc(), corev1.ReplicationControllerStatus{}.SwaggerDoc()
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Desired", Type: "integer", Description: spec["replicas"]},
		{Name: "Current", Type: "integer", Description: status["replicas"]},
		{Name: "Ready", Type: "integer", Description: status["readyReplicas"]},
		printers.AgeColumn(),
		{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
		{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
		{Name: "Selector", Type: "string", Priority: 1, Description: spec["selector"]},
	}
	return printers.New(columns, func(rc *corev1.ReplicationController, now time.Time) []any {
		var desired int64
		if rc.Spec.Replicas != nil {
			desired = int64(*rc.Spec.Replicas)
		}
		var names, images []string
		if rc.Spec.Template != nil {
			for _, c := range rc.Spec.Template.Spec.Containers {
				names = append(names, c.Name)
				images = append(images, c.Image)
			}
		}
		return []any{
			rc.Name, desired, int64(rc.Status.Replicas), int64(rc.Status.ReadyReplicas), printers.Age(rc.CreationTimestamp, now),
			strings.Join(names, ","), strings.Join(images, ","), labels.FormatLabels(rc.Spec.Selector),
		}
	})
}
