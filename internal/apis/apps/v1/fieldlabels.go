package v1

import "k8s.io/apimachinery/pkg/runtime"

// AddFieldLabelConversions registers the field selectors each kind accepts
// beyond metadata.name and metadata.namespace. apps/v1 has none upstream
// (status.replicas of ReplicaSets and status.successful of StatefulSets
// were only accepted in the removed beta versions), so every kind keeps
// the scheme's default conversion and its message.
func AddFieldLabelConversions(scheme *runtime.Scheme) error {
	_ = scheme
	return nil
}
