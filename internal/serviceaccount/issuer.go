package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/cryptosigner"
	"github.com/go-jose/go-jose/v4/jwt"
	"k8s.io/apimachinery/pkg/util/uuid"
)

// Issuer signs service-account tokens with one key and validates them.
type Issuer struct {
	url       string
	alg       jose.SignatureAlgorithm
	keyID     string
	publicKey crypto.PublicKey
	signer    jose.Signer
	now       func() time.Time
}

// NewIssuer returns the issuer issuerURL (kube-apiserver's
// --service-account-issuer, the tokens' "iss") signing with key: RS256
// for an RSA key, ES256/ES384/ES512 for an ECDSA key on P-256/P-384/P-521.
func NewIssuer(issuerURL string, key crypto.Signer) (*Issuer, error) {
	if issuerURL == "" {
		return nil, errors.New("service account issuer: the issuer URL is empty")
	}
	if key == nil {
		return nil, errors.New("service account issuer: no signing key")
	}
	alg, err := algorithmFor(key.Public())
	if err != nil {
		return nil, err
	}
	keyID, err := keyIDFromPublicKey(key.Public())
	if err != nil {
		return nil, err
	}
	var signingKey any = key
	switch key.(type) {
	case *rsa.PrivateKey, *ecdsa.PrivateKey:
	default:
		// a key held elsewhere (an HSM, a KMS) signs through the interface
		signingKey = cryptosigner.Opaque(key)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: signingKey},
		(&jose.SignerOptions{}).WithHeader("kid", keyID))
	if err != nil {
		return nil, fmt.Errorf("service account issuer: %w", err)
	}
	return &Issuer{url: issuerURL, alg: alg, keyID: keyID, publicKey: key.Public(), signer: signer, now: time.Now}, nil
}

// WithClock returns a copy of the issuer that reads the time from now
// when it validates tokens.
func (i *Issuer) WithClock(now func() time.Time) *Issuer {
	c := *i
	c.now = now
	return &c
}

// URL is the issuer URL, the "iss" of the tokens.
func (i *Issuer) URL() string { return i.url }

// KeyID is the "kid" header of the tokens.
func (i *Issuer) KeyID() string { return i.keyID }

// Algorithm is the JWS algorithm of the tokens (RS256, ES256, ...).
func (i *Issuer) Algorithm() string { return string(i.alg) }

// PublicKeys are the keys that verify the issuer's tokens.
func (i *Issuer) PublicKeys() []crypto.PublicKey { return []crypto.PublicKey{i.publicKey} }

// KeySet is the JSON Web Key Set of the public keys, as served at
// /openid/v1/jwks.
func (i *Issuer) KeySet() jose.JSONWebKeySet {
	return jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{
		Key:       i.publicKey,
		KeyID:     i.keyID,
		Algorithm: string(i.alg),
		Use:       "sig",
	}}}
}

// Issue signs claims as a compact JWT. It sets "iss" to the issuer's URL
// and "jti" to a new UUID when the claims have none.
func (i *Issuer) Issue(claims *Claims) (string, error) {
	c := *claims
	c.Issuer = i.url
	if c.ID == "" {
		c.ID = string(uuid.NewUUID())
	}
	token, err := jwt.Signed(i.signer).Claims(&c).Serialize()
	if err != nil {
		return "", fmt.Errorf("signing service account token: %w", err)
	}
	return token, nil
}

func algorithmFor(public crypto.PublicKey) (jose.SignatureAlgorithm, error) {
	switch k := public.(type) {
	case *rsa.PublicKey:
		return jose.RS256, nil
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return jose.ES256, nil
		case elliptic.P384():
			return jose.ES384, nil
		case elliptic.P521():
			return jose.ES512, nil
		}
		return "", fmt.Errorf("service account issuer: unsupported ECDSA curve %s", k.Curve.Params().Name)
	}
	return "", fmt.Errorf("service account issuer: unsupported key type %T; use RSA or ECDSA", public)
}

// keyIDFromPublicKey names a key as upstream does, so tokens and JWKS
// carry the same kid as kube-apiserver's for the same key: the unpadded
// base64url SHA-256 of the DER (PKIX) public key.
func keyIDFromPublicKey(public crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(public)
	if err != nil {
		return "", fmt.Errorf("service account issuer: encoding the public key: %w", err)
	}
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}
