package controllerrevision

import (
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	appsv1beta1 "k8s.io/api/apps/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME CONTROLLER REVISION AGE; CONTROLLER is the owning
// controller as kind.group/name (e.g. statefulset.apps/web), or <none>.
func Table() *printers.Table[*appsv1.ControllerRevision] {
	cols := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Controller", Type: "string", Description: "Controller of the object"},
		{Name: "Revision", Type: "string", Description: appsv1beta1.ControllerRevision{}.SwaggerDoc()["revision"]},
		printers.AgeColumn(),
	}
	return printers.New(cols, func(cr *appsv1.ControllerRevision, now time.Time) []any {
		return []any{cr.Name, controllerName(cr), cr.Revision, printers.Age(cr.CreationTimestamp, now)}
	})
}

func controllerName(cr *appsv1.ControllerRevision) string {
	ref := metav1.GetControllerOf(cr)
	if ref == nil {
		return "<none>"
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return ref.Name
	}
	gk := gv.WithKind(ref.Kind).GroupKind()
	if gk.Empty() {
		return ref.Name
	}
	return strings.ToLower(gk.String()) + "/" + ref.Name
}
