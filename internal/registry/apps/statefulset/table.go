package statefulset

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/apps/columns"
	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME READY AGE, and CONTAINERS IMAGES with -o wide.
func Table() *printers.Table[*appsv1.StatefulSet] {
	cols := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Ready", Type: "string", Description: "Number of the pod with ready state"},
		printers.AgeColumn(),
		columns.Containers(),
		columns.Images(),
	}
	return printers.New(cols, func(ss *appsv1.StatefulSet, now time.Time) []any {
		names, images := columns.ContainersAndImages(ss.Spec.Template.Spec.Containers)
		return []any{
			ss.Name,
			fmt.Sprintf("%d/%d", int64(ss.Status.ReadyReplicas), int64(ptr.Deref(ss.Spec.Replicas, 0))),
			printers.Age(ss.CreationTimestamp, now),
			names, images,
		}
	})
}
