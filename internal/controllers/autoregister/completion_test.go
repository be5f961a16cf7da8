package autoregister

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

func apiServiceWith(name string, status apiregistrationv1.ConditionStatus) *apiregistrationv1.APIService {
	s := &apiregistrationv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if status != "" {
		s.Status.Conditions = []apiregistrationv1.APIServiceCondition{{Type: apiregistrationv1.Available, Status: status}}
	}
	return s
}

// TestCompletion pins kube-apiserver's autoregister-completion check: it
// fails with "missing APIService: [...]" (sorted) until each APIService
// registered at start was seen Available once, and a later loss of
// availability does not fail it again.
func TestCompletion(t *testing.T) {
	c := NewCompletion([]string{"v1.apps", "v1."})
	h := c.Handler()
	steps := []struct {
		name    string
		event   func()
		wantErr string
	}{
		{"nothing seen", func() {}, "missing APIService: [v1. v1.apps]"},
		{"created without condition", func() { h.OnAdd(apiServiceWith("v1.", ""), false) }, "missing APIService: [v1. v1.apps]"},
		{"not available", func() { h.OnAdd(apiServiceWith("v1.apps", apiregistrationv1.ConditionFalse), false) }, "missing APIService: [v1. v1.apps]"},
		{"one available", func() {
			h.OnUpdate(apiServiceWith("v1.", ""), apiServiceWith("v1.", apiregistrationv1.ConditionTrue))
		}, "missing APIService: [v1.apps]"},
		{"another one, not waited for", func() { h.OnAdd(apiServiceWith("v1.example.com", apiregistrationv1.ConditionTrue), false) }, "missing APIService: [v1.apps]"},
		{"all available", func() { h.OnAdd(apiServiceWith("v1.apps", apiregistrationv1.ConditionTrue), false) }, ""},
		{"unavailable again", func() {
			h.OnUpdate(apiServiceWith("v1.apps", apiregistrationv1.ConditionTrue), apiServiceWith("v1.apps", apiregistrationv1.ConditionFalse))
		}, ""},
	}
	for _, s := range steps {
		s.event()
		err := c.Check()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != s.wantErr {
			t.Errorf("%s: Check() = %q, want %q", s.name, got, s.wantErr)
		}
	}
}
