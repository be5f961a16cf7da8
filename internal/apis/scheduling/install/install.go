// Package install registers the scheduling.k8s.io API group in a scheme: the
// k8s.io/api types, kapi's defaulting, conversion and field-label
// functions, and the version priority.
package install

import (
	"fmt"

	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapischedulingv1 "github.com/kapi-dev/kapi/internal/apis/scheduling/v1"
)

// Install adds the scheduling.k8s.io group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", schedulingv1.AddToScheme},
		{"v1 defaults", kapischedulingv1.RegisterDefaults},
		{"v1 conversions", kapischedulingv1.RegisterConversions},
		{"v1 field labels", kapischedulingv1.AddFieldLabelConversions},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(schedulingv1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("scheduling.k8s.io %s: %w", step.name, err)
		}
	}
	return nil
}
