// Package approval is the CertificateApproval admission plugin: approving
// or denying a CertificateSigningRequest (its approval subresource)
// needs the `approve` verb on the request's signer.
package approval

import (
	"context"
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/certificates"
	"github.com/kapi-dev/kapi/internal/admission/plugins/forbidden"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

// PluginName is the name used by --enable-admission-plugins.
const PluginName = "CertificateApproval"

// Plugin checks approvals.
type Plugin struct{ signer certificates.SignerCheck }

var _ admission.ValidationInterface = (*Plugin)(nil)

// New returns the plugin; upstream refuses to run it without an
// authorizer.
func New(authz authorizer.Authorizer) (*Plugin, error) {
	signer, err := certificates.NewSignerCheck(PluginName, authz, "approve", "approve requests with")
	if err != nil {
		return nil, err
	}
	return &Plugin{signer: signer}, nil
}

var csrs = certificatesv1.Resource("certificatesigningrequests")

// Validate checks the signer of the stored request (the old object), so a
// request cannot change its signer on the way to approval.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Update || a.Subresource != "approval" || a.Resource.GroupResource() != csrs {
		return nil
	}
	csr, ok := a.OldObject.(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return forbidden.New(a, fmt.Errorf("expected type CertificateSigningRequest, got: %T", a.OldObject))
	}
	return p.signer.Check(ctx, a, csr.Spec.SignerName)
}
