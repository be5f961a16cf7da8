// Package install registers the core/v1 API group ("" group, version v1)
// in a scheme: the k8s.io/api types, kapi's defaulting functions and field
// label conversions, and the version priority.
package install

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapicorev1 "github.com/kapi-dev/kapi/internal/apis/core/v1"
)

// Install adds the core group to scheme. corev1.AddToScheme also registers
// the meta/v1 option types (ListOptions, DeleteOptions, WatchEvent, ...)
// and the unversioned Status under "v1", which the legacy /api path needs.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"types", corev1.AddToScheme},
		{"defaults", kapicorev1.RegisterDefaults},
		{"field labels", kapicorev1.AddFieldLabelConversions},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(corev1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("core/v1 %s: %w", step.name, err)
		}
	}
	return nil
}
