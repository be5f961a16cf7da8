package serviceaccount

import (
	"errors"
	"fmt"
	"slices"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

var (
	// ErrNotServiceAccountToken is returned for a bearer token that is not
	// a JWT of this issuer: the authenticator passes it on to the next
	// token authenticator instead of rejecting it.
	ErrNotServiceAccountToken = errors.New("not a service account token of this issuer")
	// ErrInvalidToken wraps every reason a token of this issuer is
	// rejected.
	ErrInvalidToken = errors.New("invalid service account token")
)

// leeway absorbs clock skew between issuer and validator, as upstream's
// (go-jose's DefaultLeeway).
const leeway = jwt.DefaultLeeway

// supportedAlgorithms are the algorithms a token may be parsed with;
// the signature check then holds it to the issuer's key.
var supportedAlgorithms = []jose.SignatureAlgorithm{jose.RS256, jose.ES256, jose.ES384, jose.ES512}

// Validate checks a bound token of this issuer: its signature, that its
// times hold now (with a minute of leeway), that it names a service
// account, and, when audiences is not empty, that it is meant for one of
// them. It returns the token's claims; whether the service account and
// the bound object still exist (with the UIDs of the claims) is the
// caller's check.
func (i *Issuer) Validate(token string, audiences []string) (*Claims, error) {
	parsed, err := jwt.ParseSigned(token, supportedAlgorithms)
	if err != nil {
		return nil, ErrNotServiceAccountToken
	}
	var unverified Claims
	if err := parsed.UnsafeClaimsWithoutVerification(&unverified); err != nil || unverified.Issuer != i.url {
		return nil, ErrNotServiceAccountToken
	}
	var claims Claims
	if err := parsed.Claims(i.publicKey, &claims); err != nil {
		return nil, fmt.Errorf("%w: the signature does not match the issuer's key", ErrInvalidToken)
	}
	if err := i.validateTimes(&claims); err != nil {
		return nil, err
	}
	if claims.Kubernetes == nil || claims.Kubernetes.Namespace == "" || claims.Kubernetes.ServiceAccount.Name == "" {
		return nil, fmt.Errorf("%w: it names no service account", ErrInvalidToken)
	}
	if claims.Subject != MakeUsername(claims.Kubernetes.Namespace, claims.Kubernetes.ServiceAccount.Name) {
		return nil, fmt.Errorf("%w: its subject %q does not match its service account", ErrInvalidToken, claims.Subject)
	}
	if len(audiences) > 0 && !slices.ContainsFunc(claims.Audience, func(a string) bool { return slices.Contains(audiences, a) }) {
		return nil, fmt.Errorf("%w: token audiences %q is invalid for the target audiences %q", ErrInvalidToken, claims.Audience, audiences)
	}
	return &claims, nil
}

func (i *Issuer) validateTimes(c *Claims) error {
	if c.Expiry == nil {
		return fmt.Errorf("%w: it has no expiry", ErrInvalidToken)
	}
	err := jwt.Claims{Expiry: c.Expiry, NotBefore: c.NotBefore, IssuedAt: c.IssuedAt}.
		ValidateWithLeeway(jwt.Expected{Time: i.now()}, leeway)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, jwt.ErrExpired):
		return fmt.Errorf("%w: it has expired", ErrInvalidToken)
	case errors.Is(err, jwt.ErrNotValidYet):
		return fmt.Errorf("%w: it is not valid yet", ErrInvalidToken)
	case errors.Is(err, jwt.ErrIssuedInTheFuture):
		return fmt.Errorf("%w: it was issued in the future", ErrInvalidToken)
	}
	return fmt.Errorf("%w: %w", ErrInvalidToken, err)
}
