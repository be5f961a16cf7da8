package apihelpers

import (
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSetCondition(t *testing.T) {
	then := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := metav1.NewTime(then.Add(time.Hour))
	established := func(status apiextensionsv1.ConditionStatus, at metav1.Time) []apiextensionsv1.CustomResourceDefinitionCondition {
		return []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: status, LastTransitionTime: at, Reason: "R"}}
	}
	tests := []struct {
		name     string
		existing []apiextensionsv1.CustomResourceDefinitionCondition
		status   apiextensionsv1.ConditionStatus
		wantTime metav1.Time
	}{
		{"new condition", nil, apiextensionsv1.ConditionTrue, now},
		{"same status keeps the time", established(apiextensionsv1.ConditionTrue, then), apiextensionsv1.ConditionTrue, then},
		{"flip moves the time", established(apiextensionsv1.ConditionFalse, then), apiextensionsv1.ConditionTrue, now},
		{"unset time is set", established(apiextensionsv1.ConditionTrue, metav1.Time{}), apiextensionsv1.ConditionTrue, now},
	}
	for _, tt := range tests {
		crd := &apiextensionsv1.CustomResourceDefinition{Status: apiextensionsv1.CustomResourceDefinitionStatus{Conditions: tt.existing}}
		SetCondition(crd, apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established, Status: tt.status, Reason: "R2"}, now)
		c := FindCondition(crd, apiextensionsv1.Established)
		switch {
		case len(crd.Status.Conditions) != 1 || c == nil:
			t.Errorf("%s: conditions %+v, want one Established", tt.name, crd.Status.Conditions)
		case c.Status != tt.status || c.Reason != "R2" || !c.LastTransitionTime.Equal(&tt.wantTime):
			t.Errorf("%s: got %+v, want status %s, reason R2, time %v", tt.name, *c, tt.status, tt.wantTime)
		}
		if FindCondition(crd, apiextensionsv1.Terminating) != nil {
			t.Errorf("%s: found a Terminating condition that was never set", tt.name)
		}
	}
}
