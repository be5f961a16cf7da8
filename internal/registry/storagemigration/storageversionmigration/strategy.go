// Package storageversionmigration is the REST storage of
// storagemigration.k8s.io/v1 storage version migrations and their status
// subresource: a user names a resource to rewrite, the migrator
// (kube-controller-manager) reports progress in the status.
package storageversionmigration

import (
	"context"

	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/storagemigration/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy writes the main resource: cluster-scoped, status owned by the
// migrator. Like upstream it sets no metadata.generation.
type Strategy struct {
	rest.StatusOwnedStrategy
}

// StatusStrategy writes storageversionmigrations/status.
type StatusStrategy struct {
	Strategy
}

var (
	_ rest.RESTCreateStrategy  = Strategy{}
	_ rest.ResetFieldsStrategy = Strategy{}
	_ rest.RESTUpdateStrategy  = StatusStrategy{}
	_ rest.ResetFieldsStrategy = StatusStrategy{}
)

// NewStrategy returns the strategy; typer is the scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.StatusOwnedStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// NamespaceScoped is false.
func (Strategy) NamespaceScoped() bool { return false }

// Validate checks a new migration.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateStorageVersionMigration(obj.(*storagemigrationv1.StorageVersionMigration))
}

// ValidateUpdate checks an update: the spec is immutable.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateStorageVersionMigrationUpdate(obj.(*storagemigrationv1.StorageVersionMigration), old.(*storagemigrationv1.StorageVersionMigration))
}

// PrepareForUpdate keeps the stored spec and the metadata a status write
// may not change.
func (StatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	svm, oldSVM := obj.(*storagemigrationv1.StorageVersionMigration), old.(*storagemigrationv1.StorageVersionMigration)
	svm.Spec = oldSVM.Spec
	metav1.ResetObjectMetaForStatus(svm, oldSVM)
}

// ValidateUpdate checks the status rules.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateStorageVersionMigrationStatusUpdate(obj.(*storagemigrationv1.StorageVersionMigration), old.(*storagemigrationv1.StorageVersionMigration))
}

// GetResetFields: status writes ignore metadata and spec.
func (StatusStrategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"metadata": {}, "spec": {}}
}
