// Package install registers the coordination.k8s.io/v1 API group (leases)
// in a scheme. Leases have no defaults and only the metadata field
// selectors, which the scheme's default field-label conversion handles.
package install

import (
	"fmt"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Install adds the coordination group to scheme.
func Install(scheme *runtime.Scheme) error {
	if err := coordinationv1.AddToScheme(scheme); err != nil {
		return fmt.Errorf("coordination.k8s.io/v1 types: %w", err)
	}
	if err := scheme.SetVersionPriority(coordinationv1.SchemeGroupVersion); err != nil {
		return fmt.Errorf("coordination.k8s.io/v1 version priority: %w", err)
	}
	return nil
}
