// Package deployment is the REST storage of apps/v1 deployments: the
// strategies of the resource and of its status, the table, and the
// storage with its status and scale subresources.
package deployment

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/apps/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how deployments are created and updated: status is the
// controller's, generation counts spec and annotation changes (the
// controller copies annotations to replica sets).
type Strategy struct {
	rest.SpecStatusStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the deployment strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// PrepareForUpdate keeps the stored status and bumps generation when the
// spec or the annotations changed.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	d, oldD := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
	d.Status = oldD.Status
	d.Generation = oldD.Generation
	if !equality.Semantic.DeepEqual(d.Spec, oldD.Spec) || !equality.Semantic.DeepEqual(d.Annotations, oldD.Annotations) {
		d.Generation++
	}
}

// Validate checks a new deployment.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateDeployment(obj.(*appsv1.Deployment))
}

// ValidateUpdate checks an update, selector immutability included.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateDeploymentUpdate(obj.(*appsv1.Deployment), old.(*appsv1.Deployment))
}

// StatusStrategy is the update strategy of deployments/status: spec and
// labels are kept, status is taken.
type StatusStrategy struct {
	rest.StatusSubresourceStrategy
}

// NewStatusStrategy returns the status strategy; typer is the server's
// scheme.
func NewStatusStrategy(typer runtime.ObjectTyper) StatusStrategy {
	return StatusStrategy{rest.StatusSubresourceStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// PrepareForUpdate keeps the stored spec and labels.
func (StatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	d, oldD := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
	d.Spec = oldD.Spec
	d.Labels = oldD.Labels
}

// Validate is never called: the status subresource does not create.
func (StatusStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate checks the new status.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateDeploymentStatusUpdate(obj.(*appsv1.Deployment), old.(*appsv1.Deployment))
}
