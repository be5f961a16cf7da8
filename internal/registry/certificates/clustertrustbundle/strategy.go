// Package clustertrustbundle is the REST storage of certificates.k8s.io/v1
// cluster trust bundles: cluster-scoped sets of X.509 trust anchors,
// optionally tied to a signer, that pods mount through the
// clusterTrustBundle projection.
package clustertrustbundle

import (
	"context"
	"fmt"
	"maps"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/certificates/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy: cluster-scoped, no status and, like upstream, no generation.
type Strategy struct {
	rest.DefaultStrategy
}

var _ rest.RESTCreateStrategy = Strategy{}

// NewStrategy returns the bundle strategy; typer is the scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// NamespaceScoped is false.
func (Strategy) NamespaceScoped() bool { return false }

// Validate checks a new bundle.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateClusterTrustBundle(obj.(*certificatesv1.ClusterTrustBundle))
}

// ValidateUpdate checks an update; the signer name is immutable.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateClusterTrustBundleUpdate(obj.(*certificatesv1.ClusterTrustBundle), old.(*certificatesv1.ClusterTrustBundle))
}

// GetAttrs returns a bundle's labels and selectable fields: metadata.name
// and spec.signerName.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	b, ok := obj.(*certificatesv1.ClusterTrustBundle)
	if !ok {
		return nil, nil, fmt.Errorf("not a cluster trust bundle: %T", obj)
	}
	ls, fs, err := generic.DefaultClusterScopedAttr(b)
	if err != nil {
		return nil, nil, err
	}
	maps.Copy(fs, fields.Set{"spec.signerName": b.Spec.SignerName})
	return ls, fs, nil
}
