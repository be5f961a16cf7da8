package validatingadmissionpolicybinding

import (
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kapiadmissionregistrationv1 "github.com/kapi-dev/kapi/internal/apis/admissionregistration/v1"
	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME POLICYNAME PARAMREF AGE.
func Table() *printers.Table[*admissionregistrationv1.ValidatingAdmissionPolicyBinding] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "PolicyName", Type: "string", Description: "PolicyName indicates the policy definition which the policy binding binded to"},
		{Name: "ParamRef", Type: "string", Description: "ParamRef indicates the param resource which sets the configration param"},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding, now time.Time) []any {
		return []any{b.Name, b.Spec.PolicyName, kapiadmissionregistrationv1.ParamRefString(b.Spec.ParamRef), printers.Age(b.CreationTimestamp, now)}
	})
}
