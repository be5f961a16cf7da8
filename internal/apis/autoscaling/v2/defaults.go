package v2

import "k8s.io/apimachinery/pkg/runtime"

// RegisterDefaults adds the defaulting functions of the group version's types to scheme.
func RegisterDefaults(scheme *runtime.Scheme) error {
	_ = scheme
	return nil
}
