package certificates

import (
	"context"
	"fmt"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/forbidden"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

// SignerCheck is the check the CertificateApproval, CertificateSigning and
// ClusterTrustBundleAttest plugins share: the requesting user needs one
// verb on the object's signer.
type SignerCheck struct {
	authz  authorizer.Authorizer
	verb   string
	action string // completes "user not permitted to <action> signerName %q"
}

// NewSignerCheck returns the check for verb; like upstream, a plugin
// needing it refuses to run without an authorizer.
func NewSignerCheck(plugin string, authz authorizer.Authorizer, verb, action string) (SignerCheck, error) {
	if authz == nil {
		return SignerCheck{}, fmt.Errorf("%s requires an authorizer", plugin)
	}
	return SignerCheck{authz: authz, verb: verb, action: action}, nil
}

// Check returns nil when the user of a may use the check's verb on
// signerName (or its domain wildcard), else a Forbidden error.
func (c SignerCheck) Check(ctx context.Context, a *admission.Attributes, signerName string) error {
	if IsAuthorizedForSignerName(ctx, c.authz, a.UserInfo, c.verb, signerName) {
		return nil
	}
	return forbidden.New(a, fmt.Errorf("user not permitted to %s signerName %q", c.action, signerName))
}
