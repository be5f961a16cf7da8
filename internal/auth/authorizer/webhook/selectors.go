package webhook

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

// fieldRequirements are a's field selector in a SubjectAccessReview, as
// upstream sends it: equality as In, inequality as NotIn. Requirements of
// other operators are dropped: requirements are ANDed, so the check only
// gets broader, never narrower than asked.
func fieldRequirements(a authorizer.Attributes) []metav1.FieldSelectorRequirement {
	var out []metav1.FieldSelectorRequirement
	for _, r := range a.FieldSelectorRequirements {
		var op metav1.FieldSelectorOperator
		switch r.Operator {
		case selection.Equals, selection.DoubleEquals, selection.In:
			op = metav1.FieldSelectorOpIn
		case selection.NotEquals, selection.NotIn:
			op = metav1.FieldSelectorOpNotIn
		default:
			continue
		}
		out = append(out, metav1.FieldSelectorRequirement{Key: r.Field, Operator: op, Values: []string{r.Value}})
	}
	return out
}

// labelRequirements are a's label selector in a SubjectAccessReview, as
// upstream sends it (unknown operators dropped, as for fields).
func labelRequirements(a authorizer.Attributes) []metav1.LabelSelectorRequirement {
	var out []metav1.LabelSelectorRequirement
	for _, r := range a.LabelSelectorRequirements {
		var op metav1.LabelSelectorOperator
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			op = metav1.LabelSelectorOpIn
		case selection.NotEquals, selection.NotIn:
			op = metav1.LabelSelectorOpNotIn
		case selection.Exists:
			op = metav1.LabelSelectorOpExists
		case selection.DoesNotExist:
			op = metav1.LabelSelectorOpDoesNotExist
		default:
			continue
		}
		req := metav1.LabelSelectorRequirement{Key: r.Key(), Operator: op}
		if v := r.ValuesUnsorted(); len(v) > 0 {
			req.Values = v
		}
		out = append(out, req)
	}
	return out
}
