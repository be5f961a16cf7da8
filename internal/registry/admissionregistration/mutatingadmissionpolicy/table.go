package mutatingadmissionpolicy

import (
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kapiadmissionregistrationv1 "github.com/kapi-dev/kapi/internal/apis/admissionregistration/v1"
	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME MUTATIONS PARAMKIND AGE.
func Table() *printers.Table[*admissionregistrationv1.MutatingAdmissionPolicy] {
	columns := []metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Mutations", Type: "integer", Description: "Mutation indicates the number of mutations rules defined in this configuration"},
		{Name: "ParamKind", Type: "string", Description: "ParamKind specifies the kind of resources used to parameterize this policy"},
		printers.AgeColumn(),
	}
	return printers.New(columns, func(p *admissionregistrationv1.MutatingAdmissionPolicy, now time.Time) []any {
		return []any{p.Name, int64(len(p.Spec.Mutations)), kapiadmissionregistrationv1.ParamKindString(p.Spec.ParamKind), printers.Age(p.CreationTimestamp, now)}
	})
}
