// Package install registers the rbac.authorization.k8s.io API group in a scheme: the
// k8s.io/api types, kapi's defaulting, conversion and field-label
// functions, and the version priority.
package install

import (
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapirbacv1 "github.com/kapi-dev/kapi/internal/apis/rbac/v1"
)

// Install adds the rbac.authorization.k8s.io group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", rbacv1.AddToScheme},
		{"v1 defaults", kapirbacv1.RegisterDefaults},
		{"v1 conversions", kapirbacv1.RegisterConversions},
		{"v1 field labels", kapirbacv1.AddFieldLabelConversions},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(rbacv1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("rbac.authorization.k8s.io %s: %w", step.name, err)
		}
	}
	return nil
}
