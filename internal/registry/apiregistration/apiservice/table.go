package apiservice

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME SERVICE AVAILABLE AGE, as upstream: SERVICE is
// "Local" or namespace/name, AVAILABLE the Available condition's status
// with its reason when not True.
func Table() *printers.Table[*apiregistrationv1.APIService] {
	cols := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Service", Type: "string", Description: "The reference to the service that hosts this API endpoint."},
		{Name: "Available", Type: "string", Description: "Whether this service is available."},
		printers.AgeColumn(),
	}
	return printers.New(cols, func(s *apiregistrationv1.APIService, now time.Time) []any {
		return []any{s.Name, serviceColumn(s), availableColumn(s), printers.Age(s.CreationTimestamp, now)}
	})
}

func serviceColumn(s *apiregistrationv1.APIService) string {
	if s.Spec.Service == nil {
		return "Local"
	}
	return s.Spec.Service.Namespace + "/" + s.Spec.Service.Name
}

func availableColumn(s *apiregistrationv1.APIService) string {
	c := v1helper.GetAPIServiceConditionByType(s, apiregistrationv1.Available)
	switch {
	case c == nil:
		return string(apiregistrationv1.ConditionUnknown)
	case c.Status != apiregistrationv1.ConditionTrue && c.Reason != "":
		return string(c.Status) + " (" + c.Reason + ")"
	default:
		return string(c.Status)
	}
}
