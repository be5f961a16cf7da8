// Package install registers the discovery.k8s.io API group in a scheme: the
// k8s.io/api types, kapi's defaulting, conversion and field-label
// functions, and the version priority.
package install

import (
	"fmt"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapidiscoveryv1 "github.com/kapi-dev/kapi/internal/apis/discovery/v1"
)

// Install adds the discovery.k8s.io group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", discoveryv1.AddToScheme},
		{"v1 defaults", kapidiscoveryv1.RegisterDefaults},
		{"v1 conversions", kapidiscoveryv1.RegisterConversions},
		{"v1 field labels", kapidiscoveryv1.AddFieldLabelConversions},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(discoveryv1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("discovery.k8s.io %s: %w", step.name, err)
		}
	}
	return nil
}
