// Package install registers the apps API group in a scheme: the
// k8s.io/api types, kapi's defaulting, conversion and field-label
// functions, and the version priority.
package install

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapiappsv1 "github.com/kapi-dev/kapi/internal/apis/apps/v1"
)

// Install adds the apps group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", appsv1.AddToScheme},
		{"v1 defaults", kapiappsv1.RegisterDefaults},
		{"v1 conversions", kapiappsv1.RegisterConversions},
		{"v1 field labels", kapiappsv1.AddFieldLabelConversions},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(appsv1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("apps %s: %w", step.name, err)
		}
	}
	return nil
}
