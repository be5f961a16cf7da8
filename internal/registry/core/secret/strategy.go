// Package secret is the REST storage of core/v1 secrets: its strategy
// (stringData, type rules, immutability, TLS warnings) and its generic
// store.
package secret

import (
	"context"
	"crypto/tls"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kapicorev1 "github.com/kapi-dev/kapi/internal/apis/core/v1"
	"github.com/kapi-dev/kapi/internal/apis/core/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how secrets are created, updated and deleted. Secrets
// are namespaced and keep the update rules of rest.DefaultStrategy; they
// differ in preparing writes, validation and warnings.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the secret strategy; typer is the server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// PrepareForCreate folds stringData into data and defaults the type, so
// that what is validated and stored is what kube-apiserver stores.
func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	s := obj.(*corev1.Secret)
	mergeStringData(s)
	kapicorev1.SetDefaultsSecret(s)
}

// PrepareForUpdate folds stringData into data; an update that leaves the
// type out keeps the stored one.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	s := obj.(*corev1.Secret)
	mergeStringData(s)
	if s.Type == "" {
		s.Type = old.(*corev1.Secret).Type
	}
}

// mergeStringData writes stringData over data and clears it. stringData is
// write-only: upstream merges it when converting to its internal type, and
// kapi has no internal type, so the strategy does it.
func mergeStringData(s *corev1.Secret) {
	if len(s.StringData) == 0 {
		s.StringData = nil
		return
	}
	if s.Data == nil {
		s.Data = make(map[string][]byte, len(s.StringData))
	}
	for k, v := range s.StringData {
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
}

// Validate checks a new secret.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateSecret(obj.(*corev1.Secret))
}

// ValidateUpdate checks an update: the type and immutable content.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateSecretUpdate(obj.(*corev1.Secret), old.(*corev1.Secret))
}

// WarningsOnCreate warns about a TLS secret whose key does not match its
// certificate.
func (Strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return warnings(obj.(*corev1.Secret))
}

// WarningsOnUpdate is WarningsOnCreate for the new object.
func (Strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return warnings(obj.(*corev1.Secret))
}

func warnings(s *corev1.Secret) []string {
	if s.Type != corev1.SecretTypeTLS {
		return nil
	}
	if _, err := tls.X509KeyPair(s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey]); err != nil {
		return []string{err.Error()}
	}
	return nil
}

// GetAttrs returns a secret's labels and selectable fields: the metadata
// ones and type.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	s, ok := obj.(*corev1.Secret)
	if !ok {
		return nil, nil, fmt.Errorf("not a secret: %T", obj)
	}
	ls, fs, err := generic.DefaultNamespaceScopedAttr(s)
	if err != nil {
		return nil, nil, err
	}
	fs["type"] = string(s.Type)
	return ls, fs, nil
}
