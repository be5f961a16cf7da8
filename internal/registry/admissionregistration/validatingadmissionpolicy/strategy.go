// Package validatingadmissionpolicy is the REST storage of
// admissionregistration.k8s.io/v1 validating admission policies and their
// status subresource: strategies, table and generic store. Expressions are
// not compiled.
package validatingadmissionpolicy

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/admissionregistration/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how policies are written through the main resource:
// cluster-scoped, status dropped on create and kept on update, generation
// bumped by spec changes.
type Strategy struct {
	rest.SpecStatusStrategy
}

// StatusStrategy writes validatingadmissionpolicies/status, which the
// type-checking controller owns: spec is kept.
type StatusStrategy struct {
	rest.StatusSubresourceStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = StatusStrategy{}
)

// NewStrategy returns the policy strategy; typer is the server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// NewStatusStrategy returns the strategy of the status subresource.
func NewStatusStrategy(typer runtime.ObjectTyper) StatusStrategy {
	return StatusStrategy{rest.StatusSubresourceStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// NamespaceScoped is false: policies are cluster-scoped.
func (Strategy) NamespaceScoped() bool { return false }

// Validate checks a new policy.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateValidatingAdmissionPolicy(obj.(*admissionregistrationv1.ValidatingAdmissionPolicy))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateValidatingAdmissionPolicyUpdate(obj.(*admissionregistrationv1.ValidatingAdmissionPolicy), old.(*admissionregistrationv1.ValidatingAdmissionPolicy))
}

// NamespaceScoped is false: policies are cluster-scoped.
func (StatusStrategy) NamespaceScoped() bool { return false }

// ValidateUpdate checks the new status.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, _ runtime.Object) field.ErrorList {
	return validation.ValidateValidatingAdmissionPolicyStatus(&obj.(*admissionregistrationv1.ValidatingAdmissionPolicy).Status, field.NewPath("status"))
}
