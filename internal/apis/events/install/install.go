// Package install registers the events.k8s.io API group in a scheme: the
// k8s.io/api types, kapi's defaulting, conversion and field-label
// functions, and the version priority.
package install

import (
	"fmt"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapieventsv1 "github.com/kapi-dev/kapi/internal/apis/events/v1"
)

// Install adds the events.k8s.io group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", eventsv1.AddToScheme},
		{"v1 defaults", kapieventsv1.RegisterDefaults},
		{"v1 conversions", kapieventsv1.RegisterConversions},
		{"v1 field labels", kapieventsv1.AddFieldLabelConversions},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(eventsv1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("events.k8s.io %s: %w", step.name, err)
		}
	}
	return nil
}
