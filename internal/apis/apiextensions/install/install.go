// Package install registers the apiextensions.k8s.io API group in a
// scheme: kapi's own CustomResourceDefinition types, their defaulting and
// the version priority.
package install

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	apiextensionsv1 "github.com/kapi-dev/kapi/internal/apis/apiextensions/v1"
)

// Install adds the apiextensions.k8s.io group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", apiextensionsv1.AddToScheme},
		{"v1 defaults", apiextensionsv1.RegisterDefaults},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(apiextensionsv1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("%s %s: %w", apiextensionsv1.GroupName, step.name, err)
		}
	}
	return nil
}
