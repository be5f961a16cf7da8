package replicaset

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/apps/columns"
	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME DESIRED CURRENT READY AGE, and CONTAINERS IMAGES
// SELECTOR with -o wide.
func Table() *printers.Table[*appsv1.ReplicaSet] {
	cols := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Desired", Type: "integer", Description: extensionsv1beta1.ReplicaSetSpec{}.SwaggerDoc()["replicas"]},
		{Name: "Current", Type: "integer", Description: extensionsv1beta1.ReplicaSetStatus{}.SwaggerDoc()["replicas"]},
		{Name: "Ready", Type: "integer", Description: extensionsv1beta1.ReplicaSetStatus{}.SwaggerDoc()["readyReplicas"]},
		printers.AgeColumn(),
		columns.Containers(),
		columns.Images(),
		columns.Selector(extensionsv1beta1.ReplicaSetSpec{}.SwaggerDoc()["selector"]),
	}
	return printers.New(cols, func(rs *appsv1.ReplicaSet, now time.Time) []any {
		names, images := columns.ContainersAndImages(rs.Spec.Template.Spec.Containers)
		return []any{
			rs.Name,
			int64(ptr.Deref(rs.Spec.Replicas, 0)),
			int64(rs.Status.Replicas),
			int64(rs.Status.ReadyReplicas),
			printers.Age(rs.CreationTimestamp, now),
			names, images, metav1.FormatLabelSelector(rs.Spec.Selector),
		}
	})
}
