package controlplane

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/authenticator/anonymous"
	"github.com/kapi-dev/kapi/internal/auth/authenticator/bearertoken"
	"github.com/kapi-dev/kapi/internal/auth/authenticator/bootstrap"
	"github.com/kapi-dev/kapi/internal/auth/authenticator/group"
	"github.com/kapi-dev/kapi/internal/auth/authenticator/oidc"
	"github.com/kapi-dev/kapi/internal/auth/authenticator/requestheader"
	"github.com/kapi-dev/kapi/internal/auth/authenticator/serviceaccounttoken"
	"github.com/kapi-dev/kapi/internal/auth/authenticator/tokencache"
	"github.com/kapi-dev/kapi/internal/auth/authenticator/tokenfile"
	"github.com/kapi-dev/kapi/internal/auth/authenticator/union"
	"github.com/kapi-dev/kapi/internal/auth/authenticator/webhook"
	x509authn "github.com/kapi-dev/kapi/internal/auth/authenticator/x509"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/serviceaccount"
)

// authentication is what the authenticators built from the config give
// the server: the request authenticator of the filter chain and the
// token authenticator TokenReview asks.
type authentication struct {
	request authenticator.Request
	tokens  authenticator.Token
	// objects reads the objects bound tokens refer to, once storage exists.
	objects *objectGetter
	// saKeys verify service-account tokens; issuer discovery publishes them.
	saKeys []crypto.PublicKey
}

// newAuthentication builds the authenticators in kube-apiserver's order:
// front proxy, client certificates, bearer tokens (the loopback token, token file,
// service-account tokens, bootstrap tokens, OIDC, webhook); every
// authenticated user gets system:authenticated; with --anonymous-auth, a
// request nobody recognises (and nobody rejects) is system:anonymous.
func newAuthentication(ctx context.Context, c *Config, t *tlsServing, saKeys []crypto.PublicKey, loopbackToken authenticator.Token, logger *slog.Logger) (*authentication, error) {
	sec := &c.Security
	a := &authentication{objects: &objectGetter{}, saKeys: saKeys}
	var requests []authenticator.Request
	if t.requestHeaderCA != nil {
		rh := sec.RequestHeader
		requests = append(requests, requestheader.New(requestheader.Options{
			ClientCA: t.requestHeaderCA.Pool, AllowedNames: rh.AllowedNames,
			UsernameHeaders: rh.UsernameHeaders, UIDHeaders: rh.UIDHeaders,
			GroupHeaders: rh.GroupHeaders, ExtraHeaderPrefixes: rh.ExtraHeaderPrefixes,
		}))
	}
	requests = append(requests, x509authn.NewDynamic(t.clientCAs))

	// The server's own clients first, as kube-apiserver: their token is
	// good whatever else is configured.
	tokens := []authenticator.Token{audienceAgnostic{loopbackToken, c.APIAudiences}}
	if sec.TokenAuthFile != "" {
		tf, err := tokenfile.NewCSVWithLogger(sec.TokenAuthFile, logger)
		if err != nil {
			return nil, fmt.Errorf("--token-auth-file: %w", err)
		}
		tokens = append(tokens, audienceAgnostic{tf, c.APIAudiences})
	}
	tokens = append(tokens, serviceaccounttoken.New(serviceaccounttoken.Options{
		Issuers: c.ServiceAccountIssuers, Keys: saKeys, APIAudiences: c.APIAudiences,
		Lookup: !sec.DisableServiceAccountLookup, Getter: a.objects, SecretWriter: a.objects,
	}))
	if sec.EnableBootstrapTokenAuth {
		tokens = append(tokens, audienceAgnostic{bootstrap.New(func(ctx context.Context, name string) (*corev1.Secret, error) {
			return a.objects.GetSecret(ctx, bootstrap.Namespace, name)
		}), c.APIAudiences})
	}
	if o := sec.OIDC; o.IssuerURL != "" {
		tok, err := oidc.New(ctx, oidc.Options{
			IssuerURL: o.IssuerURL, ClientID: o.ClientID, CAFile: o.CAFile,
			UsernameClaim: o.UsernameClaim, UsernamePrefix: o.UsernamePrefix,
			GroupsClaim: o.GroupsClaim, GroupsPrefix: o.GroupsPrefix,
			RequiredClaims: o.RequiredClaims, SigningAlgs: o.SigningAlgs,
		})
		if err != nil {
			return nil, fmt.Errorf("--oidc-issuer-url: %w", err)
		}
		tokens = append(tokens, audienceAgnostic{tok, c.APIAudiences})
	}
	if f := sec.TokenWebhookConfigFile; f != "" {
		ttl := sec.TokenWebhookCacheTTL
		tok, err := webhook.New(f, ttl, c.APIAudiences)
		if err != nil {
			return nil, fmt.Errorf("--authentication-token-webhook-config-file: %w", err)
		}
		tokens = append(tokens, tok)
	}
	// Repeated tokens skip the signature checks for a few seconds, as
	// kube-apiserver's token cache does.
	a.tokens = tokencache.New(union.NewTokens(tokens...), tokenCacheTTL)
	requests = append(requests, bearertoken.New(a.tokens))

	a.request = group.NewAuthenticatedGroupAdder(union.New(requests...))
	if sec.AnonymousAuth {
		a.request = union.NewFailOnError(a.request, anonymous.New())
	}
	return a, nil
}

// tokenCacheTTL is how long a token that authenticated is remembered.
const tokenCacheTTL = 10 * time.Second

// serviceAccountKeys are the keys that verify service-account tokens:
// --service-account-key-file, else the signing key's public half.
func serviceAccountKeys(c *Config, signer crypto.Signer) ([]crypto.PublicKey, error) {
	if len(c.Security.ServiceAccountKeyFiles) == 0 {
		return []crypto.PublicKey{signer.Public()}, nil
	}
	var keys []crypto.PublicKey
	for _, f := range c.Security.ServiceAccountKeyFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("--service-account-key-file: %w", err)
		}
		k, err := serviceaccount.ParsePublicKeysPEM(data)
		if err != nil {
			return nil, fmt.Errorf("--service-account-key-file %s: %w", f, err)
		}
		keys = append(keys, k...)
	}
	return keys, nil
}

// objectGetter reads service accounts, secrets, pods and nodes from the
// core storage, which is built after the authenticators.
type objectGetter struct {
	stores  atomic.Pointer[map[string]rest.Getter]
	secrets atomic.Pointer[rest.Updater]
}

var errStorageNotReady = errors.New("storage is not ready")

// bind gives the getter the core group's storage.
func (g *objectGetter) bind(groups []rest.APIGroupInfo) {
	stores := map[string]rest.Getter{}
	for _, gi := range groups {
		if gi.Group != "" || !slices.Contains(gi.Versions, "v1") {
			continue
		}
		for _, res := range []string{"serviceaccounts", "secrets", "pods", "nodes"} {
			if s, ok := gi.Storage["v1"][res].(rest.Getter); ok {
				stores[res] = s
			}
			if u, ok := gi.Storage["v1"][res].(rest.Updater); ok && res == "secrets" {
				g.secrets.Store(&u)
			}
		}
	}
	g.stores.Store(&stores)
}

func get[T any](g *objectGetter, ctx context.Context, resource, namespace, name string) (*T, error) {
	stores := g.stores.Load()
	if stores == nil || (*stores)[resource] == nil {
		return nil, errStorageNotReady
	}
	obj, err := (*stores)[resource].Get(request.WithNamespace(ctx, namespace), name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	typed, ok := any(obj).(*T)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("%s storage returned %T", resource, obj))
	}
	return typed, nil
}

func (g *objectGetter) GetServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	return get[corev1.ServiceAccount](g, ctx, "serviceaccounts", namespace, name)
}

func (g *objectGetter) GetSecret(ctx context.Context, namespace, name string) (*corev1.Secret, error) {
	return get[corev1.Secret](g, ctx, "secrets", namespace, name)
}

// UpdateSecret writes a Secret straight to storage; the authenticator
// records legacy token use with it.
func (g *objectGetter) UpdateSecret(ctx context.Context, secret *corev1.Secret) error {
	u := g.secrets.Load()
	if u == nil {
		return errStorageNotReady
	}
	_, _, err := (*u).Update(request.WithNamespace(ctx, secret.Namespace), secret.Name, rest.DefaultUpdatedObjectInfo(secret), nil, nil, false, &metav1.UpdateOptions{})
	return err
}

func (g *objectGetter) GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	return get[corev1.Pod](g, ctx, "pods", namespace, name)
}

func (g *objectGetter) GetNode(ctx context.Context, name string) (*corev1.Node, error) {
	return get[corev1.Node](g, ctx, "nodes", "", name)
}

// loadSigningKey starts loading (or, the first time, generating) the
// service-account signing key; the returned function waits for it.
// Generating kapi serve's RSA 2048 key costs 50–150 ms of CPU, so it runs
// while storage starts instead of after.
func loadSigningKey(c *Config) func() (crypto.Signer, error) {
	type result struct {
		signer crypto.Signer
		err    error
	}
	ch := make(chan result, 1)
	go func() {
		signer, err := serviceaccount.LoadOrGenerateSigningKey(c.ServiceAccountSigningKeyFile, filepath.Join(c.DataDir, "pki", "sa.key"))
		ch <- result{signer, err}
	}()
	return sync.OnceValues(func() (crypto.Signer, error) {
		r := <-ch
		if r.err != nil {
			return nil, fmt.Errorf("--service-account-signing-key-file: %w", r.err)
		}
		return r.signer, nil
	})
}

// securityAuthentication takes the service-account signing key from
// signingKey, loads the verifying keys and builds the authenticators.
func securityAuthentication(ctx context.Context, c *Config, t *tlsServing, signingKey func() (crypto.Signer, error), loopbackToken authenticator.Token, logger *slog.Logger) (*authentication, error) {
	signer, err := signingKey()
	if err != nil {
		return nil, err
	}
	keys, err := serviceAccountKeys(c, signer)
	if err != nil {
		return nil, err
	}
	return newAuthentication(ctx, c, t, keys, loopbackToken, logger)
}

// audienceAgnostic is a token authenticator whose tokens carry no
// audience (static, bootstrap and OIDC tokens): they are good for the
// server's own audiences only, as upstream wraps them. A request for
// other audiences gets no opinion; a request for some of the server's
// gets them back in the response.
type audienceAgnostic struct {
	inner        authenticator.Token
	apiAudiences []string
}

func (a audienceAgnostic) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	requested, ok := authenticator.AudiencesFrom(ctx)
	if !ok || len(requested) == 0 {
		return a.inner.AuthenticateToken(ctx, token)
	}
	var common []string
	for _, aud := range requested {
		if slices.Contains(a.apiAudiences, aud) {
			common = append(common, aud)
		}
	}
	if len(common) == 0 {
		return nil, false, nil
	}
	resp, ok, err := a.inner.AuthenticateToken(ctx, token)
	if ok && err == nil && resp != nil && len(resp.Audiences) == 0 {
		resp.Audiences = common
	}
	return resp, ok, err
}
