// Package install registers the policy API group in a scheme: the
// k8s.io/api types, kapi's defaulting, conversion and field-label
// functions, and the version priority.
package install

import (
	"fmt"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapipolicyv1 "github.com/kapi-dev/kapi/internal/apis/policy/v1"
)

// Install adds the policy group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", policyv1.AddToScheme},
		{"v1 defaults", kapipolicyv1.RegisterDefaults},
		{"v1 conversions", kapipolicyv1.RegisterConversions},
		{"v1 field labels", kapipolicyv1.AddFieldLabelConversions},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(policyv1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("policy %s: %w", step.name, err)
		}
	}
	return nil
}
