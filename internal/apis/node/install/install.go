// Package install registers the node.k8s.io API group in a scheme: the
// k8s.io/api types, kapi's defaulting, conversion and field-label
// functions, and the version priority.
package install

import (
	"fmt"

	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapinodev1 "github.com/kapi-dev/kapi/internal/apis/node/v1"
)

// Install adds the node.k8s.io group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", nodev1.AddToScheme},
		{"v1 defaults", kapinodev1.RegisterDefaults},
		{"v1 conversions", kapinodev1.RegisterConversions},
		{"v1 field labels", kapinodev1.AddFieldLabelConversions},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(nodev1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("node.k8s.io %s: %w", step.name, err)
		}
	}
	return nil
}
