package serviceaccount

import (
	"fmt"

	"github.com/go-jose/go-jose/v4/jwt"
)

// LegacyIssuer is the "iss" of secret-based service-account tokens.
const LegacyIssuer = "kubernetes/serviceaccount"

// LegacyClaims are the claims of a token kept in a
// kubernetes.io/service-account-token Secret, as the tokens controller
// writes them: no audience and no expiry, valid while the Secret and
// the service account exist.
type LegacyClaims struct {
	Issuer             string `json:"iss"`
	Subject            string `json:"sub"`
	Namespace          string `json:"kubernetes.io/serviceaccount/namespace"`
	SecretName         string `json:"kubernetes.io/serviceaccount/secret.name"`
	ServiceAccountName string `json:"kubernetes.io/serviceaccount/service-account.name"`
	ServiceAccountUID  string `json:"kubernetes.io/serviceaccount/service-account.uid"`
}

// NewLegacyClaims returns the claims of the token of Secret secretName for
// service account name (with uid) of namespace.
func NewLegacyClaims(namespace, name, uid, secretName string) *LegacyClaims {
	return &LegacyClaims{
		Issuer: LegacyIssuer, Subject: MakeUsername(namespace, name),
		Namespace: namespace, SecretName: secretName,
		ServiceAccountName: name, ServiceAccountUID: uid,
	}
}

// IssueLegacy signs legacy claims with the issuer's key; the issuer URL
// is not used, legacy tokens carry LegacyIssuer.
func (i *Issuer) IssueLegacy(claims *LegacyClaims) (string, error) {
	c := *claims
	c.Issuer = LegacyIssuer
	token, err := jwt.Signed(i.signer).Claims(&c).Serialize()
	if err != nil {
		return "", fmt.Errorf("signing legacy service account token: %w", err)
	}
	return token, nil
}
