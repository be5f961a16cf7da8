package ingressclass

import (
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME CONTROLLER PARAMETERS AGE; parameters read
// Kind.group/name.
func Table() *printers.Table[*networkingv1.IngressClass] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Controller", Type: "string", Description: "Controller that is responsible for handling this class"},
		{Name: "Parameters", Type: "string", Description: "A reference to a resource with additional parameters"},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(ic *networkingv1.IngressClass, now time.Time) []any {
		params := "<none>"
		if p := ic.Spec.Parameters; p != nil {
			params = p.Kind
			if p.APIGroup != nil {
				params += "." + *p.APIGroup
			}
			params += "/" + p.Name
		}
		return []any{ic.Name, ic.Spec.Controller, params, printers.Age(ic.CreationTimestamp, now)}
	})
}
