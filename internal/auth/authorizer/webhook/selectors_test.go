package webhook

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

// The selectors of a check reach the webhook as upstream sends them in
// spec.resourceAttributes.
func TestSelectorsSent(t *testing.T) {
	fs, err := fields.ParseSelector("spec.nodeName=n1,status.phase!=Failed")
	if err != nil {
		t.Fatal(err)
	}
	ls, err := labels.ParseToRequirements("app in (web,api),!legacy,tier")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		a         authorizer.Attributes
		wantField *[]metav1.FieldSelectorRequirement
		wantLabel *[]metav1.LabelSelectorRequirement
	}{
		{name: "none", a: authorizer.Attributes{ResourceRequest: true, Verb: "list", Resource: "pods"}},
		{name: "both", a: authorizer.Attributes{ResourceRequest: true, Verb: "list", Resource: "pods",
			FieldSelectorRequirements: fs.Requirements(), LabelSelectorRequirements: ls},
			wantField: &[]metav1.FieldSelectorRequirement{
				{Key: "spec.nodeName", Operator: metav1.FieldSelectorOpIn, Values: []string{"n1"}},
				{Key: "status.phase", Operator: metav1.FieldSelectorOpNotIn, Values: []string{"Failed"}},
			},
			wantLabel: &[]metav1.LabelSelectorRequirement{
				{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"api", "web"}},
				{Key: "legacy", Operator: metav1.LabelSelectorOpDoesNotExist},
				{Key: "tier", Operator: metav1.LabelSelectorOpExists},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ra := specFor(tt.a).ResourceAttributes
			if (ra.FieldSelector == nil) != (tt.wantField == nil) || ra.FieldSelector != nil && !reflect.DeepEqual(ra.FieldSelector.Requirements, *tt.wantField) {
				t.Errorf("fieldSelector = %+v", ra.FieldSelector)
			}
			if (ra.LabelSelector == nil) != (tt.wantLabel == nil) || ra.LabelSelector != nil && !reflect.DeepEqual(ra.LabelSelector.Requirements, *tt.wantLabel) {
				t.Errorf("labelSelector = %+v", ra.LabelSelector)
			}
		})
	}
}
