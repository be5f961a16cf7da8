// Package mutatingadmissionpolicybinding is the REST storage of admissionregistration.k8s.io/v1
// mutating admission policy bindings: strategy, table and generic store.
package mutatingadmissionpolicybinding

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/admissionregistration/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how bindings are written: cluster-scoped, generation 1 on
// create and bumped by spec changes. Whether the writer may read the
// policy's params is not checked.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the binding strategy; typer is the server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// NamespaceScoped is false: bindings are cluster-scoped.
func (Strategy) NamespaceScoped() bool { return false }

// PrepareForCreate sets generation 1.
func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	rest.SetGeneration(obj, 1)
}

// PrepareForUpdate bumps generation when the spec changes.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	rest.BumpGenerationOnChange(obj, old, "Spec")
}

// Validate checks a new binding.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateMutatingAdmissionPolicyBinding(obj.(*admissionregistrationv1.MutatingAdmissionPolicyBinding))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateMutatingAdmissionPolicyBindingUpdate(obj.(*admissionregistrationv1.MutatingAdmissionPolicyBinding), old.(*admissionregistrationv1.MutatingAdmissionPolicyBinding))
}
