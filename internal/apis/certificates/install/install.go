// Package install registers the certificates.k8s.io API group in a scheme: the
// k8s.io/api types, kapi's defaulting, conversion and field-label
// functions, and the version priority.
package install

import (
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapicertificatesv1 "github.com/kapi-dev/kapi/internal/apis/certificates/v1"
)

// Install adds the certificates.k8s.io group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", certificatesv1.AddToScheme},
		{"v1 defaults", kapicertificatesv1.RegisterDefaults},
		{"v1 conversions", kapicertificatesv1.RegisterConversions},
		{"v1 field labels", kapicertificatesv1.AddFieldLabelConversions},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(certificatesv1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("certificates.k8s.io %s: %w", step.name, err)
		}
	}
	return nil
}
