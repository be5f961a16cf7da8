// Package install registers the authorization.k8s.io API group in a scheme: the
// k8s.io/api types, kapi's defaulting, conversion and field-label
// functions, and the version priority.
package install

import (
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapiauthorizationv1 "github.com/kapi-dev/kapi/internal/apis/authorization/v1"
)

// Install adds the authorization.k8s.io group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", authorizationv1.AddToScheme},
		{"v1 defaults", kapiauthorizationv1.RegisterDefaults},
		{"v1 conversions", kapiauthorizationv1.RegisterConversions},
		{"v1 field labels", kapiauthorizationv1.AddFieldLabelConversions},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(authorizationv1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("authorization.k8s.io %s: %w", step.name, err)
		}
	}
	return nil
}
