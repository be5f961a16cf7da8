// Package oidc authenticates OpenID Connect ID tokens, as kube-apiserver's
// --oidc-* flags configure: the issuer is discovered (and its keys
// fetched) over HTTPS with github.com/coreos/go-oidc, and the token's
// claims name the user and groups.
//
// Discovery runs in the background and retries until it succeeds, so a
// server can start while its identity provider is down; until then ID
// tokens of the issuer get an error.
package oidc

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sync/atomic"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
)

// Options are kube-apiserver's --oidc-* flags.
type Options struct {
	IssuerURL, ClientID, CAFile string
	// UsernameClaim defaults to "sub". An unset UsernamePrefix prefixes
	// the names of every claim but "email" with "<issuer>#"; "-" means
	// no prefix.
	UsernameClaim, UsernamePrefix string
	GroupsClaim, GroupsPrefix     string
	// RequiredClaims must each be present with the given string value.
	RequiredClaims map[string]string
	SigningAlgs    []string // default RS256
	Now            func() time.Time

	// retryInterval is how long discovery waits between attempts; tests
	// shorten it.
	retryInterval time.Duration
}

const (
	defaultRetryInterval = 10 * time.Second
	// requestTimeout bounds each discovery and key-set request.
	requestTimeout = 30 * time.Second
)

// allowedSigningAlgs keeps a typo in --oidc-signing-algs from reaching
// the verifier.
var allowedSigningAlgs = []string{
	gooidc.RS256, gooidc.RS384, gooidc.RS512,
	gooidc.ES256, gooidc.ES384, gooidc.ES512,
	gooidc.PS256, gooidc.PS384, gooidc.PS512,
}

type tokenAuthenticator struct {
	issuer         string
	clientID       string
	usernameClaim  string
	usernamePrefix string
	groupsClaim    string
	groupsPrefix   string
	requiredClaims map[string]string

	verifier atomic.Pointer[gooidc.IDTokenVerifier]
	// initialized is closed once discovery has succeeded.
	initialized chan struct{}
}

var _ authenticator.Token = (*tokenAuthenticator)(nil)

// New returns an OIDC ID-token authenticator. ctx bounds its life: the
// background discovery and every key-set fetch stop when it is done.
func New(ctx context.Context, o Options) (authenticator.Token, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	client, err := httpClient(o.CAFile)
	if err != nil {
		return nil, err
	}
	a := &tokenAuthenticator{
		issuer:         o.IssuerURL,
		clientID:       o.ClientID,
		usernameClaim:  o.UsernameClaim,
		usernamePrefix: o.UsernamePrefix,
		groupsClaim:    o.GroupsClaim,
		groupsPrefix:   o.GroupsPrefix,
		requiredClaims: o.RequiredClaims,
		initialized:    make(chan struct{}),
	}
	if a.usernameClaim == "" {
		a.usernameClaim = "sub"
	}
	switch {
	case o.UsernamePrefix == "-":
		a.usernamePrefix = ""
	case o.UsernamePrefix == "" && a.usernameClaim != "email":
		// names from another claim could collide with local users
		a.usernamePrefix = o.IssuerURL + "#"
	}
	config := &gooidc.Config{
		// the audience is checked below, with upstream's message
		SkipClientIDCheck:    true,
		SupportedSigningAlgs: o.SigningAlgs,
		Now:                  o.Now,
	}
	if len(config.SupportedSigningAlgs) == 0 {
		config.SupportedSigningAlgs = []string{gooidc.RS256}
	}
	interval := o.retryInterval
	if interval <= 0 {
		interval = defaultRetryInterval
	}
	// go-oidc fetches keys with the client of this context, for as long
	// as the context lives
	ctx = gooidc.ClientContext(ctx, client)
	go func() {
		_ = wait.PollUntilContextCancel(ctx, interval, true, func(ctx context.Context) (bool, error) {
			provider, err := gooidc.NewProvider(ctx, o.IssuerURL)
			if err != nil {
				return false, nil // retried until it works or ctx ends
			}
			a.verifier.Store(provider.Verifier(config))
			close(a.initialized)
			return true, nil
		})
	}()
	return a, nil
}

func (o *Options) validate() error {
	if o.IssuerURL == "" {
		return errors.New("oidc: the issuer URL is empty")
	}
	u, err := url.Parse(o.IssuerURL)
	if err != nil {
		return fmt.Errorf("oidc: issuer URL: %w", err)
	}
	if u.Scheme != "https" {
		return fmt.Errorf("oidc: issuer URL must use https scheme, got: %s", o.IssuerURL)
	}
	if o.ClientID == "" {
		return errors.New("oidc: the client ID is empty")
	}
	for _, alg := range o.SigningAlgs {
		if !slices.Contains(allowedSigningAlgs, alg) {
			return fmt.Errorf("oidc: unsupported signing alg: %q", alg)
		}
	}
	return nil
}

// httpClient trusts caFile, or the system roots without one.
func httpClient(caFile string) (*http.Client, error) {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		data, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("oidc: failed to read the CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(data) {
			return nil, fmt.Errorf("oidc: no certificates found in CA file %s", caFile)
		}
		transport.TLSClientConfig.RootCAs = pool
	}
	return &http.Client{Transport: transport, Timeout: requestTimeout}, nil
}

// AuthenticateToken implements authenticator.Token.
func (a *tokenAuthenticator) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	if untrustedIssuer(token) != a.issuer {
		return nil, false, nil
	}
	verifier := a.verifier.Load()
	if verifier == nil {
		return nil, false, errors.New("oidc: authenticator not initialized")
	}
	idToken, err := verifier.Verify(ctx, token)
	if err != nil {
		return nil, false, fmt.Errorf("oidc: verify token: %w", err)
	}
	if !slices.Contains(idToken.Audience, a.clientID) {
		return nil, false, fmt.Errorf("oidc: expected audience in %q got %q", []string{a.clientID}, idToken.Audience)
	}
	var c claims
	if err := idToken.Claims(&c); err != nil {
		return nil, false, fmt.Errorf("oidc: parse claims: %w", err)
	}
	info, err := a.userInfo(c)
	if err != nil {
		return nil, false, err
	}
	if err := a.checkRequiredClaims(c); err != nil {
		return nil, false, err
	}
	return &authenticator.Response{User: info}, true, nil
}

// untrustedIssuer reads "iss" from a compact JWT without verifying it,
// to tell tokens of this issuer from others; "" when it is not a JWT.
func untrustedIssuer(token string) string {
	iss := authenticator.UntrustedIssuer(token)
	// Google writes its issuer without the scheme (OpenID Connect core §15.6.2)
	if iss == "accounts.google.com" {
		return "https://accounts.google.com"
	}
	return iss
}
