package v2

import "k8s.io/apimachinery/pkg/runtime"

// AddFieldLabelConversions registers the field selectors each kind accepts beyond metadata.name and metadata.namespace.
func AddFieldLabelConversions(scheme *runtime.Scheme) error {
	_ = scheme
	return nil
}
