package v1

import "k8s.io/apimachinery/pkg/runtime"

// RegisterConversions adds the conversions between this version and the
// group's storage version to scheme. apps/v1 is the only version served
// and stored, so there are none.
func RegisterConversions(scheme *runtime.Scheme) error {
	_ = scheme
	return nil
}
