package deployment

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/apps/columns"
	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME READY UP-TO-DATE AVAILABLE AGE, and CONTAINERS
// IMAGES SELECTOR with -o wide. The descriptions are upstream's, taken
// from the extensions/v1beta1 documentation.
func Table() *printers.Table[*appsv1.Deployment] {
	cols := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Ready", Type: "string", Description: "Number of the pod with ready state"},
		{Name: "Up-to-date", Type: "string", Description: extensionsv1beta1.DeploymentStatus{}.SwaggerDoc()["updatedReplicas"]},
		{Name: "Available", Type: "string", Description: extensionsv1beta1.DeploymentStatus{}.SwaggerDoc()["availableReplicas"]},
		printers.AgeColumn(),
		columns.Containers(),
		columns.Images(),
		columns.Selector(extensionsv1beta1.DeploymentSpec{}.SwaggerDoc()["selector"]),
	}
	return printers.New(cols, func(d *appsv1.Deployment, now time.Time) []any {
		names, images := columns.ContainersAndImages(d.Spec.Template.Spec.Containers)
		return []any{
			d.Name,
			fmt.Sprintf("%d/%d", int64(d.Status.ReadyReplicas), int64(ptr.Deref(d.Spec.Replicas, 0))),
			int64(d.Status.UpdatedReplicas),
			int64(d.Status.AvailableReplicas),
			printers.Age(d.CreationTimestamp, now),
			names, images, metav1.FormatLabelSelector(d.Spec.Selector),
		}
	})
}
