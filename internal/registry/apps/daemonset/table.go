package daemonset

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kapi-dev/kapi/internal/registry/apps/columns"
	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE
// SELECTOR AGE, and CONTAINERS IMAGES SELECTOR with -o wide.
func Table() *printers.Table[*appsv1.DaemonSet] {
	status := extensionsv1beta1.DaemonSetStatus{}.SwaggerDoc()
	cols := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Desired", Type: "integer", Description: status["desiredNumberScheduled"]},
		{Name: "Current", Type: "integer", Description: status["currentNumberScheduled"]},
		{Name: "Ready", Type: "integer", Description: status["numberReady"]},
		{Name: "Up-to-date", Type: "integer", Description: status["updatedNumberScheduled"]},
		{Name: "Available", Type: "integer", Description: status["numberAvailable"]},
		{Name: "Node Selector", Type: "string", Description: corev1.PodSpec{}.SwaggerDoc()["nodeSelector"]},
		printers.AgeColumn(),
		columns.Containers(),
		columns.Images(),
		columns.Selector(extensionsv1beta1.DaemonSetSpec{}.SwaggerDoc()["selector"]),
	}
	return printers.New(cols, func(ds *appsv1.DaemonSet, now time.Time) []any {
		names, images := columns.ContainersAndImages(ds.Spec.Template.Spec.Containers)
		return []any{
			ds.Name,
			int64(ds.Status.DesiredNumberScheduled),
			int64(ds.Status.CurrentNumberScheduled),
			int64(ds.Status.NumberReady),
			int64(ds.Status.UpdatedNumberScheduled),
			int64(ds.Status.NumberAvailable),
			labels.FormatLabels(ds.Spec.Template.Spec.NodeSelector),
			printers.Age(ds.CreationTimestamp, now),
			names, images, metav1.FormatLabelSelector(ds.Spec.Selector),
		}
	})
}
