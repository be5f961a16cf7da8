// Package install registers the flowcontrol.apiserver.k8s.io API group in a scheme: the
// k8s.io/api types, kapi's defaulting, conversion and field-label
// functions, and the version priority.
package install

import (
	"fmt"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapiflowcontrolv1 "github.com/kapi-dev/kapi/internal/apis/flowcontrol/v1"
)

// Install adds the flowcontrol.apiserver.k8s.io group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", flowcontrolv1.AddToScheme},
		{"v1 defaults", kapiflowcontrolv1.RegisterDefaults},
		{"v1 conversions", kapiflowcontrolv1.RegisterConversions},
		{"v1 field labels", kapiflowcontrolv1.AddFieldLabelConversions},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(flowcontrolv1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("flowcontrol.apiserver.k8s.io %s: %w", step.name, err)
		}
	}
	return nil
}
