package v1

import "k8s.io/apimachinery/pkg/runtime"

// RegisterDefaults adds the defaulting functions of the group version's
// types to scheme. certificates.k8s.io/v1 has none: unlike v1beta1, a v1
// CSR must name its signer and usages.
func RegisterDefaults(scheme *runtime.Scheme) error {
	_ = scheme
	return nil
}
