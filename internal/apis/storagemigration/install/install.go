// Package install registers the storagemigration.k8s.io/v1 API group
// (storage version migrations) in a scheme. They have no defaults and only
// the metadata field selectors, which the scheme's default field-label
// conversion handles.
package install

import (
	"fmt"

	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Install adds the storagemigration group to scheme.
func Install(scheme *runtime.Scheme) error {
	if err := storagemigrationv1.AddToScheme(scheme); err != nil {
		return fmt.Errorf("storagemigration.k8s.io/v1 types: %w", err)
	}
	if err := scheme.SetVersionPriority(storagemigrationv1.SchemeGroupVersion); err != nil {
		return fmt.Errorf("storagemigration.k8s.io/v1 version priority: %w", err)
	}
	return nil
}
