package e2e

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// asClient is the admin's connection (URL, CA) with other credentials.
func asClient(t *testing.T, k *framework.Kapi, set func(*rest.Config)) kubernetes.Interface {
	t.Helper()
	admin := k.RESTConfig()
	cfg := &rest.Config{Host: admin.Host, TLSClientConfig: rest.TLSClientConfig{CAData: admin.CAData}, QPS: -1}
	if set != nil {
		set(cfg)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func withToken(token string) func(*rest.Config) {
	return func(c *rest.Config) { c.BearerToken = token }
}

func withCert(certPEM, keyPEM []byte) func(*rest.Config) {
	return func(c *rest.Config) { c.CertData, c.KeyData = certPEM, keyPEM }
}

// withHeaders adds request headers, as a front proxy does.
func withHeaders(set func(*rest.Config), headers map[string]string) func(*rest.Config) {
	return func(c *rest.Config) {
		set(c)
		c.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
			return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
				r = r.Clone(r.Context())
				for k, v := range headers {
					r.Header.Add(k, v)
				}
				return rt.RoundTrip(r)
			})
		}
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// whoami asks the server who the client is.
func whoami(cs kubernetes.Interface) (authenticationv1.UserInfo, error) {
	r, err := cs.AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return authenticationv1.UserInfo{}, err
	}
	return r.Status.UserInfo, nil
}

// TestAuthenticatorsMatrix runs one server with every authenticator on,
// and for each checks that a valid credential names the expected user and
// groups, and that a bad or expired one is a bare 401.
func TestAuthenticatorsMatrix(t *testing.T) {
	clientCA := newTestCA(t, "client")
	proxyCA := newTestCA(t, "front-proxy")
	oidc := startOIDCIssuer(t)
	webhookConfig := startTokenWebhook(t, "wh-good", authenticationv1.UserInfo{Username: "dave", UID: "uid-dave", Groups: []string{"webhook-group"}})
	tokenFile := writeTestFile(t, "tokens.csv", []byte("tok-alice,alice,uid-alice,\"dev,qa\"\n"))

	k := framework.StartKapi(t, framework.WithStorageBackend("memory"), framework.WithArgs(
		"--anonymous-auth=true",
		"--client-ca-file="+clientCA.file,
		"--token-auth-file="+tokenFile,
		"--enable-bootstrap-token-auth",
		"--oidc-issuer-url="+oidc.srv.URL, "--oidc-client-id=kapi", "--oidc-ca-file="+oidc.caFile,
		"--oidc-username-claim=email", "--oidc-groups-claim=groups", "--oidc-groups-prefix=oidc:",
		"--authentication-token-webhook-config-file="+webhookConfig,
		"--requestheader-client-ca-file="+proxyCA.file, "--requestheader-allowed-names=front-proxy",
		"--requestheader-username-headers=X-Remote-User", "--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
	))
	admin := k.Clientset()
	ctx := t.Context()

	// A bootstrap token and a service-account token.
	_, err := admin.CoreV1().Secrets("kube-system").Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "bootstrap-token-abcdef"},
		Type:       "bootstrap.kubernetes.io/token",
		StringData: map[string]string{"token-id": "abcdef", "token-secret": "0123456789abcdef", "usage-bootstrap-authentication": "true", "auth-extra-groups": "system:bootstrappers:worker"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = admin.CoreV1().Secrets("kube-system").Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "bootstrap-token-zzzzzz"},
		Type:       "bootstrap.kubernetes.io/token",
		StringData: map[string]string{"token-id": "zzzzzz", "token-secret": "0123456789abcdef", "usage-bootstrap-authentication": "true", "expiration": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := admin.CoreV1().ServiceAccounts("default").CreateToken(ctx, "robot", &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	carolCert, carolKey := clientCA.issue(t, "carol", []string{"ops"})
	strangerCA := newTestCA(t, "stranger")
	strangerCert, strangerKey := strangerCA.issue(t, "mallory", []string{"system:masters"})
	proxyCert, proxyKey := proxyCA.issue(t, "front-proxy", nil)
	otherProxyCert, otherProxyKey := proxyCA.issue(t, "not-allowed", nil)

	valid := []struct {
		name   string
		creds  func(*rest.Config)
		user   string
		groups []string
	}{
		{"x509 client certificate", withCert(carolCert, carolKey), "carol", []string{"ops", "system:authenticated"}},
		{"static token", withToken("tok-alice"), "alice", []string{"dev", "qa", "system:authenticated"}},
		{"bootstrap token", withToken("abcdef.0123456789abcdef"), "system:bootstrap:abcdef", []string{"system:bootstrappers:worker", "system:bootstrappers", "system:authenticated"}},
		{"service-account token", withToken(tr.Status.Token), "system:serviceaccount:default:robot", []string{"system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"}},
		{"OIDC token", withToken(oidc.token(t, time.Hour, map[string]any{"sub": "erin-id", "email": "erin@example.com", "email_verified": true, "groups": []string{"eng"}})), "erin@example.com", []string{"oidc:eng", "system:authenticated"}},
		{"webhook token", withToken("wh-good"), "dave", []string{"webhook-group", "system:authenticated"}},
		{"front proxy", withHeaders(withCert(proxyCert, proxyKey), map[string]string{"X-Remote-User": "frank", "X-Remote-Group": "proxied"}), "frank", []string{"proxied", "system:authenticated"}},
	}
	for _, c := range valid {
		t.Run(c.name, func(t *testing.T) {
			u, err := whoami(asClient(t, k, c.creds))
			if err != nil {
				t.Fatalf("whoami: %v", err)
			}
			if u.Username != c.user || !sameSet(u.Groups, c.groups) {
				t.Errorf("user %q groups %v, want %q %v", u.Username, u.Groups, c.user, c.groups)
			}
		})
	}

	invalid := []struct {
		name  string
		creds func(*rest.Config)
	}{
		{"unknown static token", withToken("tok-nobody")},
		{"bootstrap token with a wrong secret", withToken("abcdef.ffffffffffffffff")},
		{"expired bootstrap token", withToken("zzzzzz.0123456789abcdef")},
		{"tampered service-account token", withToken(tr.Status.Token[:len(tr.Status.Token)-4] + "AAAA")},
		{"expired OIDC token", withToken(oidc.token(t, -time.Hour, map[string]any{"sub": "x", "email": "x@example.com", "email_verified": true}))},
		{"client certificate from an unknown CA", withCert(strangerCert, strangerKey)},
		{"front proxy with a name not allowed", withHeaders(withCert(otherProxyCert, otherProxyKey), map[string]string{"X-Remote-User": "frank"})},
	}
	for _, c := range invalid {
		t.Run(c.name, func(t *testing.T) {
			_, err := whoami(asClient(t, k, c.creds))
			if !apierrors.IsUnauthorized(err) {
				t.Fatalf("got %v, want 401", err)
			}
			if msg := err.Error(); msg != "Unauthorized" {
				t.Errorf("401 message %q says more than Unauthorized", msg)
			}
		})
	}

	t.Run("anonymous without an RBAC rule", func(t *testing.T) {
		anon := asClient(t, k, nil)
		_, err := anon.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `User "system:anonymous" cannot list resource "namespaces"`) {
			t.Errorf("anonymous list namespaces: %v, want 403 naming system:anonymous", err)
		}
		// system:public-info-viewer lets everyone read the version.
		if _, err := anon.Discovery().ServerVersion(); err != nil {
			t.Errorf("anonymous /version: %v", err)
		}
	})
}

// TestAnonymousOffByDefault: a fresh server answers 401 to a request
// without credentials, and lets its admin in.
func TestAnonymousOffByDefault(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	_, err := asClient(t, k, nil).CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
	if !apierrors.IsUnauthorized(err) {
		t.Errorf("no credentials: %v, want 401", err)
	}
	u, err := whoami(k.Clientset())
	if err != nil || !slices.Contains(u.Groups, "system:masters") {
		t.Errorf("admin: %+v, %v", u, err)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
