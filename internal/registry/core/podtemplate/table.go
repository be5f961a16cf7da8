package podtemplate

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME CONTAINERS IMAGES POD LABELS, as kubectl get
// podtemplates does.
func Table() *printers.Table[*corev1.PodTemplate] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Containers", Type: "string", Description: "Names of each container in the template."},
		{Name: "Images", Type: "string", Description: "Images referenced by each container in the template."},
		{Name: "Pod Labels", Type: "string", Description: "The labels for the pod template."},
	}
	return printers.New(columns, func(t *corev1.PodTemplate, _ time.Time) []any {
		names, images := containerCells(t.Template.Spec.Containers)
		return []any{t.Name, names, images, labels.FormatLabels(t.Template.Labels)}
	})
}

// containerCells joins container names and images with commas.
func containerCells(containers []corev1.Container) (names, images string) {
	n := make([]string, len(containers))
	i := make([]string, len(containers))
	for k, c := range containers {
		n[k], i[k] = c.Name, c.Image
	}
	return strings.Join(n, ","), strings.Join(i, ",")
}
