// Package install registers the batch API group in a scheme: the
// k8s.io/api types, kapi's defaulting, conversion and field-label
// functions, and the version priority.
package install

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapibatchv1 "github.com/kapi-dev/kapi/internal/apis/batch/v1"
)

// Install adds the batch group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", batchv1.AddToScheme},
		{"v1 defaults", kapibatchv1.RegisterDefaults},
		{"v1 conversions", kapibatchv1.RegisterConversions},
		{"v1 field labels", kapibatchv1.AddFieldLabelConversions},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(batchv1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("batch %s: %w", step.name, err)
		}
	}
	return nil
}
