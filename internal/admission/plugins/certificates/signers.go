// Package certificates holds what the certificate admission plugins
// share: the authorization check on the synthetic `signers` resource of
// certificates.k8s.io, by signer name and by `<domain>/*`.
package certificates

import (
	"context"
	"strings"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// IsAuthorizedForSignerName reports whether u may verb the signers
// resource named signerName, or the wildcard of its domain
// (`example.com/*` for `example.com/foo`). Authorizer errors count as no.
func IsAuthorizedForSignerName(ctx context.Context, authz authorizer.Authorizer, u user.Info, verb, signerName string) bool {
	domain, _, _ := strings.Cut(signerName, "/")
	for _, name := range []string{signerName, domain + "/*"} {
		d, _, err := authz.Authorize(ctx, authorizer.Attributes{
			User: u, Verb: verb, Name: name,
			APIGroup: "certificates.k8s.io", APIVersion: "*", Resource: "signers",
			ResourceRequest: true,
		})
		if err == nil && d == authorizer.DecisionAllow {
			return true
		}
	}
	return false
}
