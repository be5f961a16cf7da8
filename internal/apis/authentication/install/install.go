// Package install registers the authentication.k8s.io API group in a scheme: the
// k8s.io/api types, kapi's defaulting, conversion and field-label
// functions, and the version priority.
package install

import (
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapiauthenticationv1 "github.com/kapi-dev/kapi/internal/apis/authentication/v1"
)

// Install adds the authentication.k8s.io group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", authenticationv1.AddToScheme},
		{"v1 defaults", kapiauthenticationv1.RegisterDefaults},
		{"v1 conversions", kapiauthenticationv1.RegisterConversions},
		{"v1 field labels", kapiauthenticationv1.AddFieldLabelConversions},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(authenticationv1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("authentication.k8s.io %s: %w", step.name, err)
		}
	}
	return nil
}
