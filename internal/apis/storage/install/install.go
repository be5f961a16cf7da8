// Package install registers the storage.k8s.io API group in a scheme: the
// k8s.io/api types, kapi's defaulting, conversion and field-label
// functions, and the version priority.
package install

import (
	"fmt"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapistoragev1 "github.com/kapi-dev/kapi/internal/apis/storage/v1"
)

// Install adds the storage.k8s.io group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", storagev1.AddToScheme},
		{"v1 defaults", kapistoragev1.RegisterDefaults},
		{"v1 conversions", kapistoragev1.RegisterConversions},
		{"v1 field labels", kapistoragev1.AddFieldLabelConversions},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(storagev1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("storage.k8s.io %s: %w", step.name, err)
		}
	}
	return nil
}
