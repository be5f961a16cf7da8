// Package discovery serves the service-account issuer discovery documents
// kube-apiserver serves: the OpenID provider configuration at
// /.well-known/openid-configuration and the JSON Web Key Set of the
// token-verification keys at /openid/v1/jwks, so that relying parties
// outside the cluster can verify service-account tokens.
package discovery

import (
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/kapi-dev/kapi/internal/serviceaccount"
)

// The paths the documents are served at.
const (
	OpenIDConfigPath = "/.well-known/openid-configuration"
	JWKSPath         = "/openid/v1/jwks"
)

const (
	// cacheControl lets relying parties keep the documents an hour, which
	// is why a new key must be published that long before it signs.
	cacheControl = "public, max-age=3600"
	mimeJSON     = "application/json"
	mimeJWKS     = "application/jwk-set+json"
)

// metadata is the part of OpenID provider metadata a relying party that
// only verifies ID tokens needs.
type metadata struct {
	Issuer        string   `json:"issuer"`
	JWKSURI       string   `json:"jwks_uri"`
	ResponseTypes []string `json:"response_types_supported"`
	SubjectTypes  []string `json:"subject_types_supported"`
	SigningAlgs   []string `json:"id_token_signing_alg_values_supported"`
}

// NewHandlers returns path → handler for the two documents of issuerURL.
// jwks_uri is jwksURI when set (--service-account-jwks-uri), else
// <issuerURL>/openid/v1/jwks. Both URLs must be https, and the issuer
// may carry no query or fragment, as OpenID discovery requires.
func NewHandlers(issuerURL, jwksURI string, keys []crypto.PublicKey) (map[string]http.Handler, error) {
	if issuerURL == "" {
		return nil, errors.New("empty issuer URL")
	}
	iss, err := url.Parse(issuerURL)
	if err != nil {
		return nil, err
	}
	switch {
	case iss.Scheme != "https":
		return nil, fmt.Errorf("issuer URL must use https scheme, got: %s", issuerURL)
	case iss.RawQuery != "":
		return nil, fmt.Errorf("issuer URL may not include a query, got: %s", issuerURL)
	case iss.Fragment != "":
		return nil, fmt.Errorf("issuer URL may not include a fragment, got: %s", issuerURL)
	}
	if jwksURI == "" {
		jwksURI = strings.TrimSuffix(issuerURL, "/") + JWKSPath
	} else if u, err := url.Parse(jwksURI); err != nil {
		return nil, err
	} else if u.Scheme != "https" {
		return nil, fmt.Errorf("jwksURI requires https scheme, parsed as: %v", u.String())
	}

	keySet, err := publicKeySet(keys)
	if err != nil {
		return nil, err
	}
	var algs []string
	for _, k := range keySet.Keys {
		if !slices.Contains(algs, k.Algorithm) {
			algs = append(algs, k.Algorithm)
		}
	}
	slices.Sort(algs)
	configJSON, err := json.Marshal(metadata{
		Issuer:        issuerURL,
		JWKSURI:       jwksURI,
		ResponseTypes: []string{"id_token"}, // the issuer only makes ID tokens
		SubjectTypes:  []string{"public"},
		SigningAlgs:   algs,
	})
	if err != nil {
		return nil, fmt.Errorf("failed to marshal service account issuer metadata: %w", err)
	}
	keysJSON, err := json.Marshal(keySet)
	if err != nil {
		return nil, fmt.Errorf("failed to marshal service account issuer JWKS: %w", err)
	}
	return map[string]http.Handler{
		OpenIDConfigPath: serveDocument(configJSON, mimeJSON),
		JWKSPath:         serveDocument(keysJSON, mimeJWKS),
	}, nil
}

// publicKeySet is the JWKS of keys, each named by kube-apiserver's key
// ID. Private keys are published by their public half only.
func publicKeySet(keys []crypto.PublicKey) (*jose.JSONWebKeySet, error) {
	if len(keys) == 0 {
		return nil, errors.New("no keys provided for validating keyset")
	}
	set := &jose.JSONWebKeySet{}
	var errs []error
	for i, key := range keys {
		if private, ok := key.(interface{ Public() crypto.PublicKey }); ok {
			key = private.Public()
		}
		alg, err := serviceaccount.SigningAlgorithm(key)
		if err != nil {
			errs = append(errs, fmt.Errorf("error constructing JWK for key #%d: %w", i, err))
			continue
		}
		kid, err := serviceaccount.KeyID(key)
		if err != nil {
			errs = append(errs, fmt.Errorf("error constructing JWK for key #%d: %w", i, err))
			continue
		}
		jwk := jose.JSONWebKey{Key: key, KeyID: kid, Algorithm: alg, Use: "sig"}
		if !jwk.IsPublic() || !jwk.Valid() {
			errs = append(errs, fmt.Errorf("key #%d not valid", i))
			continue
		}
		set.Keys = append(set.Keys, jwk)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return set, nil
}

// serveDocument answers GET and HEAD with body; the documents are public
// and the same for everyone, so caches may keep them.
func serveDocument(body []byte, contentType string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", cacheControl)
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(body) // a client that went away needs no answer
	})
}
