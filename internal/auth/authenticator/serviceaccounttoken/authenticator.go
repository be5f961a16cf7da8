// Package serviceaccounttoken authenticates service-account JWTs: the bound
// tokens of the TokenRequest API (and projected volumes) and the legacy
// tokens kept in secrets of type kubernetes.io/service-account-token.
//
// A token is checked in the order kube-apiserver checks it: its issuer is
// one of ours (else no opinion), its signature verifies with one of the
// configured keys, its audiences meet the requested ones, and the objects
// it names still exist with the UIDs it recorded.
package serviceaccounttoken

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"slices"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/serviceaccount"
)

// LegacyIssuer is the "iss" of secret-based service-account tokens.
const LegacyIssuer = "kubernetes/serviceaccount"

// Getter reads the objects a token is bound to; each returns an apierrors
// NotFound error when missing.
type Getter interface {
	GetServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error)
	GetSecret(ctx context.Context, namespace, name string) (*corev1.Secret, error)
	GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error)
	GetNode(ctx context.Context, name string) (*corev1.Node, error)
}

// Options configure New.
type Options struct {
	// Issuers are --service-account-issuer values; the first one signs, all
	// are accepted for bound tokens. Legacy secret-based tokens have issuer
	// LegacyIssuer.
	Issuers []string
	// Keys verify signatures (--service-account-key-file, default: the
	// signing key's public key). A private key stands for its public key.
	Keys []crypto.PublicKey
	// APIAudiences are --api-audiences: the default audiences, used when
	// the request context carries none (see authenticator.AudiencesFrom).
	APIAudiences []string
	// Lookup is --service-account-lookup: legacy tokens must still match
	// an existing Secret and ServiceAccount.
	Lookup bool
	Getter Getter
	// SecretWriter, when set, records the day a legacy token was last
	// used on its Secret (kubernetes.io/legacy-token-last-used), as
	// kube-apiserver does for the legacy token cleaner.
	SecretWriter SecretWriter
	Now          func() time.Time // nil = time.Now
}

// SecretWriter updates a Secret.
type SecretWriter interface {
	UpdateSecret(ctx context.Context, secret *corev1.Secret) error
}

// supportedAlgorithms are the JWS algorithms a token may carry; the key
// then decides whether its signature holds.
var supportedAlgorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.ES256, jose.ES384, jose.ES512,
	jose.PS256, jose.PS384, jose.PS512,
}

type tokenAuthenticator struct {
	issuers      map[string]bool
	keysByID     map[string][]crypto.PublicKey
	allKeys      []crypto.PublicKey
	apiAudiences []string
	lookup       bool
	getter       Getter
	secretWriter SecretWriter
	now          func() time.Time
}

var _ authenticator.Token = (*tokenAuthenticator)(nil)

// New validates service-account JWTs. A token that is not a JWT, or not
// from Options.Issuers or LegacyIssuer, gets no opinion; one of ours that
// fails a check gets an error.
func New(o Options) authenticator.Token {
	a := &tokenAuthenticator{
		issuers:      map[string]bool{LegacyIssuer: true},
		keysByID:     map[string][]crypto.PublicKey{},
		apiAudiences: slices.Clone(o.APIAudiences),
		lookup:       o.Lookup,
		getter:       o.Getter,
		secretWriter: o.SecretWriter,
		now:          o.Now,
	}
	if a.now == nil {
		a.now = time.Now
	}
	for _, iss := range o.Issuers {
		if iss != "" { // "" is what a token that is not a JWT has
			a.issuers[iss] = true
		}
	}
	for _, key := range o.Keys {
		if private, ok := key.(interface{ Public() crypto.PublicKey }); ok {
			key = private.Public()
		}
		a.allKeys = append(a.allKeys, key)
		// a key without a kid is still tried for tokens that carry none
		if kid, err := serviceaccount.KeyID(key); err == nil {
			a.keysByID[kid] = append(a.keysByID[kid], key)
		}
	}
	return a
}

// privateClaims holds both shapes of private claims: bound tokens nest
// theirs under "kubernetes.io", legacy tokens spread them at the top.
type privateClaims struct {
	Kubernetes *serviceaccount.KubernetesClaims `json:"kubernetes.io,omitempty"`
	legacyClaims
}

// AuthenticateToken implements authenticator.Token.
func (a *tokenAuthenticator) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	if !a.issuers[authenticator.UntrustedIssuer(token)] {
		return nil, false, nil
	}
	parsed, err := jwt.ParseSigned(token, supportedAlgorithms)
	if err != nil {
		return nil, false, nil
	}
	public, private, err := a.verify(parsed)
	if err != nil {
		return nil, false, err
	}
	// the issuer was read before the signature held; read it again now
	if !a.issuers[public.Issuer] {
		return nil, false, fmt.Errorf("token issuer %q is invalid", public.Issuer)
	}
	auds, err := a.audiences(ctx, public.Audience)
	if err != nil {
		return nil, false, err
	}
	var info *saInfo
	if public.Issuer == LegacyIssuer {
		info, err = a.validateLegacy(ctx, token, public, &private.legacyClaims)
	} else {
		info, err = a.validateBound(ctx, public, private.Kubernetes)
	}
	if err != nil {
		return nil, false, err
	}
	return &authenticator.Response{User: info.userInfo(), Audiences: auds}, true, nil
}

// verify checks the signature with the keys named by the token's kid, or
// all keys when it names none, and decodes the claims.
func (a *tokenAuthenticator) verify(parsed *jwt.JSONWebToken) (*jwt.Claims, *privateClaims, error) {
	keys := a.allKeys
	for _, h := range parsed.Headers {
		if h.KeyID != "" {
			keys = a.keysByID[h.KeyID]
			break
		}
	}
	if len(keys) == 0 {
		return nil, nil, errors.New("invalid signature, no keys found")
	}
	for _, key := range keys {
		var public jwt.Claims
		var private privateClaims
		if err := parsed.Claims(key, &public, &private); err == nil {
			return &public, &private, nil
		}
	}
	return nil, nil, errors.New("invalid signature")
}

// audiences intersects the token's audiences with the requested ones, as
// upstream: a token without audiences (a legacy one) counts as meant for
// the API audiences, and a request without audiences asks for those.
func (a *tokenAuthenticator) audiences(ctx context.Context, tokenAuds jwt.Audience) ([]string, error) {
	have := []string(tokenAuds)
	if len(have) == 0 {
		have = a.apiAudiences
	}
	want, ok := authenticator.AudiencesFrom(ctx)
	if !ok {
		want = a.apiAudiences
	}
	var both []string
	for _, aud := range want {
		if slices.Contains(have, aud) && !slices.Contains(both, aud) {
			both = append(both, aud)
		}
	}
	// without API audiences kube-apiserver does not check them at all
	if len(both) == 0 && len(a.apiAudiences) != 0 {
		return nil, fmt.Errorf("token audiences %q is invalid for the target audiences %q", have, want)
	}
	return both, nil
}
