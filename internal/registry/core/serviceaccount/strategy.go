// Package serviceaccount is the REST storage of core/v1 service accounts:
// its strategy and its generic store. The token subresource comes with the
// token issuer.
package serviceaccount

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/core/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// EnforceMountableSecretsAnnotation limits a service account's pods to
// the secrets it lists; deprecated since v1.32.
const EnforceMountableSecretsAnnotation = "kubernetes.io/enforce-mountable-secrets"

// Strategy says how service accounts are created, updated and deleted.
// Service accounts are namespaced and keep the update rules of
// rest.DefaultStrategy; they differ in preparing writes, validation and
// warnings.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the service account strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// PrepareForCreate keeps only the name of each listed secret: the secrets
// are in the account's namespace and nothing else in the reference means
// anything.
func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	cleanSecretReferences(obj.(*corev1.ServiceAccount))
}

// PrepareForUpdate does the same on update.
func (Strategy) PrepareForUpdate(_ context.Context, obj, _ runtime.Object) {
	cleanSecretReferences(obj.(*corev1.ServiceAccount))
}

func cleanSecretReferences(sa *corev1.ServiceAccount) {
	for i, ref := range sa.Secrets {
		sa.Secrets[i] = corev1.ObjectReference{Name: ref.Name}
	}
}

// Validate checks a new service account.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateServiceAccount(obj.(*corev1.ServiceAccount))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateServiceAccountUpdate(obj.(*corev1.ServiceAccount), old.(*corev1.ServiceAccount))
}

// WarningsOnCreate warns about the deprecated mountable-secrets
// annotation.
func (Strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return warnings(obj.(*corev1.ServiceAccount))
}

// WarningsOnUpdate is WarningsOnCreate for the new object.
func (Strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return warnings(obj.(*corev1.ServiceAccount))
}

func warnings(sa *corev1.ServiceAccount) []string {
	if _, ok := sa.Annotations[EnforceMountableSecretsAnnotation]; ok {
		return []string{fmt.Sprintf("metadata.annotations[%s]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets", EnforceMountableSecretsAnnotation)}
	}
	return nil
}

// GetAttrs returns a service account's labels and the fields every namespaced
// object can be selected by, metadata.name and metadata.namespace.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	return generic.DefaultNamespaceScopedAttr(obj)
}
