package validatingadmissionpolicy

import (
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kapiadmissionregistrationv1 "github.com/kapi-dev/kapi/internal/apis/admissionregistration/v1"
	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME VALIDATIONS PARAMKIND AGE.
func Table() *printers.Table[*admissionregistrationv1.ValidatingAdmissionPolicy] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Validations", Type: "integer", Description: "Validations indicates the number of validation rules defined in this configuration"},
		{Name: "ParamKind", Type: "string", Description: "ParamKind specifies the kind of resources used to parameterize this policy"},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(p *admissionregistrationv1.ValidatingAdmissionPolicy, now time.Time) []any {
		return []any{p.Name, int64(len(p.Spec.Validations)), kapiadmissionregistrationv1.ParamKindString(p.Spec.ParamKind), printers.Age(p.CreationTimestamp, now)}
	})
}
