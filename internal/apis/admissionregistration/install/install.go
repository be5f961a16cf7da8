// Package install registers the admissionregistration.k8s.io API group in a scheme: the
// k8s.io/api types, kapi's defaulting, conversion and field-label
// functions, and the version priority.
package install

import (
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapiadmissionregistrationv1 "github.com/kapi-dev/kapi/internal/apis/admissionregistration/v1"
)

// Install adds the admissionregistration.k8s.io group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", admissionregistrationv1.AddToScheme},
		{"v1 defaults", kapiadmissionregistrationv1.RegisterDefaults},
		{"v1 conversions", kapiadmissionregistrationv1.RegisterConversions},
		{"v1 field labels", kapiadmissionregistrationv1.AddFieldLabelConversions},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(admissionregistrationv1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("admissionregistration.k8s.io %s: %w", step.name, err)
		}
	}
	return nil
}
