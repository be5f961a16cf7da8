package networkpolicy

import (
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME POD-SELECTOR AGE.
func Table() *printers.Table[*networkingv1.NetworkPolicy] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Pod-Selector", Type: "string", Description: networkingv1.NetworkPolicySpec{}.SwaggerDoc()["podSelector"]},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(np *networkingv1.NetworkPolicy, now time.Time) []any {
		return []any{np.Name, metav1.FormatLabelSelector(&np.Spec.PodSelector), printers.Age(np.CreationTimestamp, now)}
	})
}
