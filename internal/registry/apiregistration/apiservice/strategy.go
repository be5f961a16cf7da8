// Package apiservice is the REST storage of apiregistration.k8s.io/v1
// APIServices: the strategies of the resource and of its status, the
// table, and the storage with its status subresource.
package apiservice

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"

	"github.com/kapi-dev/kapi/internal/apis/apiregistration/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how APIServices are written: cluster-scoped, status is
// the availability controller's, and a local APIService (no service) is
// Available from its creation, as upstream.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the APIService strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// NamespaceScoped is false: APIServices are cluster-scoped.
func (Strategy) NamespaceScoped() bool { return false }

// AllowUnconditionalUpdate is false, as upstream: an update names the
// resourceVersion it replaces.
func (Strategy) AllowUnconditionalUpdate() bool { return false }

// PrepareForCreate drops the status; a local APIService starts Available.
func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	s := obj.(*apiregistrationv1.APIService)
	s.Status = apiregistrationv1.APIServiceStatus{}
	if s.Spec.Service == nil {
		v1helper.SetAPIServiceCondition(s, v1helper.NewLocalAvailableAPIServiceCondition())
	}
}

// PrepareForUpdate keeps the stored status.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	rest.CopyField(obj, old, "Status")
}

// GetResetFields: writes of the main resource ignore status.
func (Strategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"status": {}}
}

// Validate checks a new APIService.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateAPIService(obj.(*apiregistrationv1.APIService))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateAPIServiceUpdate(obj.(*apiregistrationv1.APIService), old.(*apiregistrationv1.APIService))
}

// StatusStrategy is the update strategy of apiservices/status: only the
// status is taken; spec, labels, annotations, finalizers and owner
// references are kept, as upstream.
type StatusStrategy struct {
	rest.StatusSubresourceStrategy
}

// NewStatusStrategy returns the status strategy; typer is the server's
// scheme.
func NewStatusStrategy(typer runtime.ObjectTyper) StatusStrategy {
	return StatusStrategy{rest.StatusSubresourceStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// NamespaceScoped is false: APIServices are cluster-scoped.
func (StatusStrategy) NamespaceScoped() bool { return false }

// AllowUnconditionalUpdate is false, as upstream.
func (StatusStrategy) AllowUnconditionalUpdate() bool { return false }

// PrepareForUpdate keeps everything of the stored object but the status
// (and the managed fields, which the handler tracks).
func (StatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	s, oldS := obj.(*apiregistrationv1.APIService), old.(*apiregistrationv1.APIService)
	s.Spec = oldS.Spec
	s.Labels = oldS.Labels
	s.Annotations = oldS.Annotations
	s.Finalizers = oldS.Finalizers
	s.OwnerReferences = oldS.OwnerReferences
}

// GetResetFields: status writes ignore spec and metadata.
func (StatusStrategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"spec": {}, "metadata": {}}
}

// Validate is never called: the status subresource does not create.
func (StatusStrategy) Validate(context.Context, runtime.Object) field.ErrorList { return nil }

// ValidateUpdate checks the new status.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateAPIServiceStatusUpdate(obj.(*apiregistrationv1.APIService), old.(*apiregistrationv1.APIService))
}
