// Package ctbattest is the ClusterTrustBundleAttest admission plugin:
// creating or changing a ClusterTrustBundle that names a signer needs the
// `attest` verb on that signer.
package ctbattest

import (
	"context"
	"fmt"
	"reflect"

	certificatesv1 "k8s.io/api/certificates/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/certificates"
	"github.com/kapi-dev/kapi/internal/admission/plugins/forbidden"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "ClusterTrustBundleAttest"

// Plugin checks attestation.
type Plugin struct{ signer certificates.SignerCheck }

var _ admission.ValidationInterface = (*Plugin)(nil)

// New returns the plugin; upstream refuses to run it without an
// authorizer.
func New(authz authorizer.Authorizer) (*Plugin, error) {
	signer, err := certificates.NewSignerCheck(PluginName, authz, "attest", "attest for")
	if err != nil {
		return nil, err
	}
	return &Plugin{signer: signer}, nil
}

var bundles = certificatesv1.Resource("clustertrustbundles")

// Validate checks the new bundle's signer (validation forbids changing
// it), except for updates that only touch owner references and
// finalizers, so garbage collection and storage migration need no signer
// rights.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if (a.Operation != admission.Create && a.Operation != admission.Update) || a.Resource.GroupResource() != bundles {
		return nil
	}
	bundle, ok := a.Object.(*certificatesv1.ClusterTrustBundle)
	if !ok {
		return forbidden.New(a, fmt.Errorf("expected type ClusterTrustBundle, got: %T", a.OldObject))
	}
	if bundle.Spec.SignerName == "" {
		return nil
	}
	if a.Operation == admission.Update && onlyGCFieldsChanged(a.Object, a.OldObject) {
		return nil
	}
	return p.signer.Check(ctx, a, bundle.Spec.SignerName)
}

// onlyGCFieldsChanged reports whether obj differs from old only in owner
// references, finalizers and managed fields.
func onlyGCFieldsChanged(obj, old runtime.Object) bool {
	if old == nil || reflect.TypeOf(obj) != reflect.TypeOf(old) {
		return false
	}
	copied := obj.DeepCopyObject()
	cm, err1 := meta.Accessor(copied)
	om, err2 := meta.Accessor(old)
	if err1 != nil || err2 != nil {
		return false
	}
	cm.SetOwnerReferences(om.GetOwnerReferences())
	cm.SetFinalizers(om.GetFinalizers())
	cm.SetManagedFields(om.GetManagedFields())
	return apiequality.Semantic.DeepEqual(copied, old)
}
