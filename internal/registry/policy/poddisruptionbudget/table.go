package poddisruptionbudget

import (
	"time"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE.
func Table() *printers.Table[*policyv1.PodDisruptionBudget] {
	return printers.New([]metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Min Available", Type: "string", Description: "The minimum number of pods that must be available."},
		{Name: "Max Unavailable", Type: "string", Description: "The maximum number of pods that may be unavailable."},
		{Name: "Allowed Disruptions", Type: "integer", Description: "Calculated number of pods that may be disrupted at this time."},
		printers.AgeColumn(),
	}, cells)
}

func cells(pdb *policyv1.PodDisruptionBudget, now time.Time) []any {
	return []any{pdb.Name, intOrPercent(pdb.Spec.MinAvailable), intOrPercent(pdb.Spec.MaxUnavailable),
		int64(pdb.Status.DisruptionsAllowed), printers.Age(pdb.CreationTimestamp, now)}
}

func intOrPercent(v *intstr.IntOrString) string {
	if v == nil {
		return "N/A"
	}
	return v.String()
}
