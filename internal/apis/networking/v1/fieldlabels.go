package v1

import "k8s.io/apimachinery/pkg/runtime"

// AddFieldLabelConversions registers the field selectors each kind accepts
// beyond metadata.name and metadata.namespace. Upstream registers none for
// networking.k8s.io/v1: ingresses, ingress classes and network policies
// keep the scheme's default conversion.
func AddFieldLabelConversions(scheme *runtime.Scheme) error {
	_ = scheme
	return nil
}
