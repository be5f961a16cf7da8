// Package install registers the autoscaling API group in a scheme: the
// k8s.io/api types, kapi's defaulting, conversion and field-label
// functions, and the version priority.
package install

import (
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime"

	kapiautoscalingv1 "github.com/kapi-dev/kapi/internal/apis/autoscaling/v1"
	kapiautoscalingv2 "github.com/kapi-dev/kapi/internal/apis/autoscaling/v2"
)

// Install adds the autoscaling group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v2 types", autoscalingv2.AddToScheme},
		{"v2 defaults", kapiautoscalingv2.RegisterDefaults},
		{"v2 conversions", kapiautoscalingv2.RegisterConversions},
		{"v2 field labels", kapiautoscalingv2.AddFieldLabelConversions},
		{"v1 types", autoscalingv1.AddToScheme},
		{"v1 defaults", kapiautoscalingv1.RegisterDefaults},
		{"v1 conversions", kapiautoscalingv1.RegisterConversions},
		{"v1 field labels", kapiautoscalingv1.AddFieldLabelConversions},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(autoscalingv2.SchemeGroupVersion, autoscalingv1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("autoscaling %s: %w", step.name, err)
		}
	}
	return nil
}
