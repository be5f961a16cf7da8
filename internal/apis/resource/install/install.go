// Package install registers the resource.k8s.io API group in a scheme: the
// k8s.io/api types, kapi's defaulting, conversion and field-label
// functions, and the version priority.
package install

import (
	"fmt"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapiresourcev1 "github.com/kapi-dev/kapi/internal/apis/resource/v1"
)

// Install adds the resource.k8s.io group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", resourcev1.AddToScheme},
		{"v1 defaults", kapiresourcev1.RegisterDefaults},
		{"v1 conversions", kapiresourcev1.RegisterConversions},
		{"v1 field labels", kapiresourcev1.AddFieldLabelConversions},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(resourcev1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("resource.k8s.io %s: %w", step.name, err)
		}
	}
	return nil
}
