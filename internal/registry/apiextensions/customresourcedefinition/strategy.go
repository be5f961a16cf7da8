// Package customresourcedefinition is the REST storage of
// apiextensions.k8s.io/v1 CustomResourceDefinitions: their strategies,
// table and generic store.
package customresourcedefinition

import (
	"context"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/apiextensions/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy writes CRDs: cluster-scoped, status owned by the server and
// its controllers, generation bumped on spec changes, and the storage
// version always recorded in status.storedVersions so that objects
// written in it can be found again.
type Strategy struct {
	rest.SpecStatusStrategy
}

var (
	_ rest.RESTCreateStrategy  = Strategy{}
	_ rest.RESTUpdateStrategy  = Strategy{}
	_ rest.RESTDeleteStrategy  = Strategy{}
	_ rest.ResetFieldsStrategy = Strategy{}
	_ rest.RESTUpdateStrategy  = StatusStrategy{}
)

// NewStrategy returns the CRD strategy; typer is the server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// NamespaceScoped is false: CRDs are cluster-scoped.
func (Strategy) NamespaceScoped() bool { return false }

// AllowUnconditionalUpdate is false: a CRD update must name the
// resourceVersion it read, as upstream requires.
func (Strategy) AllowUnconditionalUpdate() bool { return false }

// PrepareForCreate drops the client's status, sets generation 1 and
// records the storage version.
func (s Strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.SpecStatusStrategy.PrepareForCreate(ctx, obj)
	addStorageVersion(obj.(*apiextensionsv1.CustomResourceDefinition))
}

// PrepareForUpdate keeps the stored status, bumps generation on a spec
// change and adds a new storage version to status.storedVersions.
func (s Strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.SpecStatusStrategy.PrepareForUpdate(ctx, obj, old)
	addStorageVersion(obj.(*apiextensionsv1.CustomResourceDefinition))
}

// Validate checks a new CRD.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateCustomResourceDefinition(obj.(*apiextensionsv1.CustomResourceDefinition))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateCustomResourceDefinitionUpdate(obj.(*apiextensionsv1.CustomResourceDefinition), old.(*apiextensionsv1.CustomResourceDefinition))
}

// StatusStrategy writes customresourcedefinitions/status: the stored spec
// is kept, the status is taken as sent.
type StatusStrategy struct {
	Strategy
}

// NewStatusStrategy returns the status subresource's strategy.
func NewStatusStrategy(typer runtime.ObjectTyper) StatusStrategy {
	return StatusStrategy{NewStrategy(typer)}
}

// PrepareForUpdate keeps the stored spec (metadata is written as sent,
// as upstream does).
func (StatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	rest.CopyField(obj, old, "Spec")
}

// ValidateUpdate checks metadata and the accepted names.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateUpdateCustomResourceDefinitionStatus(obj.(*apiextensionsv1.CustomResourceDefinition), old.(*apiextensionsv1.CustomResourceDefinition))
}

// GetResetFields: status writes ignore spec.
func (StatusStrategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"spec": {}}
}

// addStorageVersion appends the storage version to storedVersions unless
// it is there already.
func addStorageVersion(crd *apiextensionsv1.CustomResourceDefinition) {
	for _, v := range crd.Spec.Versions {
		if !v.Storage {
			continue
		}
		for _, stored := range crd.Status.StoredVersions {
			if stored == v.Name {
				return
			}
		}
		crd.Status.StoredVersions = append(crd.Status.StoredVersions, v.Name)
		return
	}
}
