// Package install registers the networking.k8s.io API group in a scheme: the
// k8s.io/api types, kapi's defaulting, conversion and field-label
// functions, and the version priority.
package install

import (
	"fmt"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapinetworkingv1 "github.com/kapi-dev/kapi/internal/apis/networking/v1"
)

// Install adds the networking.k8s.io group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", networkingv1.AddToScheme},
		{"v1 defaults", kapinetworkingv1.RegisterDefaults},
		{"v1 conversions", kapinetworkingv1.RegisterConversions},
		{"v1 field labels", kapinetworkingv1.AddFieldLabelConversions},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(networkingv1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("networking.k8s.io %s: %w", step.name, err)
		}
	}
	return nil
}
