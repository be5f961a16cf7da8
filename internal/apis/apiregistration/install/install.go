// Package install registers the apiregistration.k8s.io API group in a
// scheme: upstream's APIService types
// (k8s.io/kube-aggregator/pkg/apis/apiregistration/v1, with their
// protobuf, JSON and deepcopy), the default service port and the version
// priority.
package install

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// Install adds the apiregistration.k8s.io group to scheme.
func Install(scheme *runtime.Scheme) error {
	steps := []struct {
		name string
		fn   func(*runtime.Scheme) error
	}{
		{"v1 types", addKnownTypes},
		{"v1 defaults", apiregistrationv1.RegisterDefaults},
		{"version priority", func(s *runtime.Scheme) error {
			return s.SetVersionPriority(apiregistrationv1.SchemeGroupVersion)
		}},
	}
	for _, step := range steps {
		if err := step.fn(scheme); err != nil {
			return fmt.Errorf("%s %s: %w", apiregistrationv1.GroupName, step.name, err)
		}
	}
	return nil
}

// addKnownTypes registers the kinds kapi serves. Upstream's AddToScheme
// would also register conversions to upstream's internal types, which
// kapi's scheme has no use for.
func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(apiregistrationv1.SchemeGroupVersion,
		&apiregistrationv1.APIService{},
		&apiregistrationv1.APIServiceList{})
	metav1.AddToGroupVersion(s, apiregistrationv1.SchemeGroupVersion)
	return nil
}
