// Package mutatingwebhookconfiguration is the REST storage of admissionregistration.k8s.io/v1
// mutating webhook configurations: their strategy, table and generic store.
package mutatingwebhookconfiguration

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/admissionregistration/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how mutating webhook configurations are written: cluster-scoped,
// generation 1 on create and bumped when the webhooks change.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the strategy; typer is the server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// NamespaceScoped is false: webhook configurations are cluster-scoped.
func (Strategy) NamespaceScoped() bool { return false }

// PrepareForCreate sets generation 1.
func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	rest.SetGeneration(obj, 1)
}

// PrepareForUpdate bumps generation when the webhooks change.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	rest.BumpGenerationOnChange(obj, old, "Webhooks")
}

// Validate checks a new configuration.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateMutatingWebhookConfiguration(obj.(*admissionregistrationv1.MutatingWebhookConfiguration))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateMutatingWebhookConfigurationUpdate(obj.(*admissionregistrationv1.MutatingWebhookConfiguration), old.(*admissionregistrationv1.MutatingWebhookConfiguration))
}
