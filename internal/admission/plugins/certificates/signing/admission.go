// Package signing is the CertificateSigning admission plugin: setting the
// certificate of a CertificateSigningRequest (its status subresource)
// needs the `sign` verb on the request's signer.
package signing

import (
	"bytes"
	"context"
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/certificates"
	"github.com/kapi-dev/kapi/internal/admission/plugins/forbidden"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "CertificateSigning"

// Plugin checks signing.
type Plugin struct{ signer certificates.SignerCheck }

var _ admission.ValidationInterface = (*Plugin)(nil)

// New returns the plugin; upstream refuses to run it without an
// authorizer.
func New(authz authorizer.Authorizer) (*Plugin, error) {
	signer, err := certificates.NewSignerCheck(PluginName, authz, "sign", "sign requests with")
	if err != nil {
		return nil, err
	}
	return &Plugin{signer: signer}, nil
}

var csrs = certificatesv1.Resource("certificatesigningrequests")

// Validate checks a status write that changes status.certificate against
// the stored request's signer.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Update || a.Subresource != "status" || a.Resource.GroupResource() != csrs {
		return nil
	}
	old, ok := a.OldObject.(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return forbidden.New(a, fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.OldObject))
	}
	csr, ok := a.Object.(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return forbidden.New(a, fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.Object))
	}
	if bytes.Equal(old.Status.Certificate, csr.Status.Certificate) && (old.Status.Certificate == nil) == (csr.Status.Certificate == nil) {
		return nil
	}
	return p.signer.Check(ctx, a, old.Spec.SignerName)
}
