// Package install registers the apiextensions.k8s.io API group in a
// scheme: upstream's CustomResourceDefinition types
// (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1, with their
// protobuf, JSON and deepcopy), upstream's defaulting functions and the
// version priority.
package install

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Install adds the apiextensions.k8s.io group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", addKnownTypes},
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

// addKnownTypes registers the kinds kapi serves. Upstream's AddToScheme
// would also register ConversionReview (a webhook wire type, not a
// resource) and conversions to upstream's internal types, which kapi's
// scheme has no use for.
func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(apiextensionsv1.SchemeGroupVersion,
		&apiextensionsv1.CustomResourceDefinition{},
		&apiextensionsv1.CustomResourceDefinitionList{})
	metav1.AddToGroupVersion(s, apiextensionsv1.SchemeGroupVersion)
	return nil
}
