package serviceaccounttoken

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/serviceaccount"
)

const (
	issuerURL = "https://kubernetes.default.svc.cluster.local"
	apiAud    = "https://kubernetes.default.svc.cluster.local"
)

var t0 = time.Unix(1_700_000_000, 0)

// fakeGetter serves objects from maps keyed "namespace/name" (nodes by
// name) and NotFound for the rest.
type fakeGetter struct {
	sas     map[string]*corev1.ServiceAccount
	secrets map[string]*corev1.Secret
	pods    map[string]*corev1.Pod
	nodes   map[string]*corev1.Node
}

func get[T any](m map[string]*T, resource, key string) (*T, error) {
	if o, ok := m[key]; ok {
		return o, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: resource}, key[strings.LastIndex(key, "/")+1:])
}

func (g *fakeGetter) GetServiceAccount(_ context.Context, ns, name string) (*corev1.ServiceAccount, error) {
	return get(g.sas, "serviceaccounts", ns+"/"+name)
}
func (g *fakeGetter) GetSecret(_ context.Context, ns, name string) (*corev1.Secret, error) {
	return get(g.secrets, "secrets", ns+"/"+name)
}
func (g *fakeGetter) GetPod(_ context.Context, ns, name string) (*corev1.Pod, error) {
	return get(g.pods, "pods", ns+"/"+name)
}
func (g *fakeGetter) GetNode(_ context.Context, name string) (*corev1.Node, error) {
	return get(g.nodes, "nodes", name)
}

func meta(ns, name, uid string, deleting *time.Time) metav1.ObjectMeta {
	m := metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(uid)}
	if deleting != nil {
		ts := metav1.NewTime(*deleting)
		m.DeletionTimestamp = &ts
	}
	return m
}

// world is the cluster the table's tokens are checked against.
func world() *fakeGetter {
	return &fakeGetter{
		sas: map[string]*corev1.ServiceAccount{
			"ns/default": {ObjectMeta: meta("ns", "default", "sa-uid", nil)},
		},
		secrets: map[string]*corev1.Secret{
			"ns/bound-secret": {ObjectMeta: meta("ns", "bound-secret", "secret-uid", nil)},
		},
		pods: map[string]*corev1.Pod{
			"ns/web-0": {ObjectMeta: meta("ns", "web-0", "pod-uid", nil)},
		},
		nodes: map[string]*corev1.Node{
			"node-1": {ObjectMeta: meta("", "node-1", "node-uid", nil)},
		},
	}
}

type fixture struct {
	key    *rsa.PrivateKey
	issuer *serviceaccount.Issuer
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	iss, err := serviceaccount.NewIssuer(issuerURL, key)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{key: key, issuer: iss}
}

// bound issues a token issued at t0 for an hour, edited by edit.
func (f *fixture) bound(t testing.TB, edit func(c *serviceaccount.Claims)) string {
	t.Helper()
	c := serviceaccount.NewClaims(t0, "ns", serviceaccount.Ref{Name: "default", UID: "sa-uid"}, []string{apiAud}, time.Hour)
	c.ID = "jti-1"
	if edit != nil {
		edit(c)
	}
	token, err := f.issuer.Issue(c)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// legacy signs claims the way the tokens controller writes them.
func legacy(t testing.TB, key crypto.Signer, kid bool, claims map[string]any) string {
	t.Helper()
	opts := &jose.SignerOptions{}
	if kid {
		id, err := serviceaccount.KeyID(key.Public())
		if err != nil {
			t.Fatal(err)
		}
		opts = opts.WithHeader("kid", id)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	token, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return token
}

func legacyClaimsFor(secret string) map[string]any {
	return map[string]any{
		"iss":                                    LegacyIssuer,
		"sub":                                    "system:serviceaccount:ns:default",
		"kubernetes.io/serviceaccount/namespace": "ns",
		"kubernetes.io/serviceaccount/secret.name":          secret,
		"kubernetes.io/serviceaccount/service-account.name": "default",
		"kubernetes.io/serviceaccount/service-account.uid":  "sa-uid",
	}
}

func saUser(extra map[string][]string) *user.DefaultInfo {
	return &user.DefaultInfo{
		Name:   "system:serviceaccount:ns:default",
		UID:    "sa-uid",
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ns"},
		Extra:  extra,
	}
}

func TestAuthenticateToken(t *testing.T) {
	f := newFixture(t)
	other := newFixture(t)
	at := t0.Add(30 * time.Minute)
	deletedLongAgo := at.Add(-2 * time.Minute)
	deletedJustNow := at.Add(-30 * time.Second)

	legacyToken := legacy(t, f.key, true, legacyClaimsFor("default-token"))
	legacyNoKid := legacy(t, f.key, false, legacyClaimsFor("default-token"))
	legacySecret := func(g *fakeGetter, token string) {
		g.secrets["ns/default-token"] = &corev1.Secret{
			ObjectMeta: meta("ns", "default-token", "tok-uid", nil),
			Type:       corev1.SecretTypeServiceAccountToken,
			Data:       map[string][]byte{corev1.ServiceAccountTokenKey: []byte(token)},
		}
	}
	jtiExtra := map[string][]string{CredentialIDKey: {"JTI=jti-1"}}
	podExtra := map[string][]string{CredentialIDKey: {"JTI=jti-1"}, PodNameKey: {"web-0"}, PodUIDKey: {"pod-uid"},
		NodeNameKey: {"node-1"}, NodeUIDKey: {"node-uid"}}

	tests := []struct {
		name      string
		token     string
		world     func(g *fakeGetter) // changes to the cluster
		audiences []string            // request audiences; nil = none in the context
		lookupOff bool
		wantUser  *user.DefaultInfo
		wantAuds  []string
		wantErr   string // "" with no user = no opinion
	}{
		{name: "bound to nothing", token: f.bound(t, nil), wantUser: saUser(jtiExtra), wantAuds: []string{apiAud}},
		{name: "bound to a pod on a node", token: f.bound(t, func(c *serviceaccount.Claims) {
			c.Kubernetes.Pod = &serviceaccount.Ref{Name: "web-0", UID: "pod-uid"}
			c.Kubernetes.Node = &serviceaccount.Ref{Name: "node-1", UID: "node-uid"}
		}), wantUser: saUser(podExtra), wantAuds: []string{apiAud}},
		{name: "bound to a secret", token: f.bound(t, func(c *serviceaccount.Claims) {
			c.Kubernetes.Secret = &serviceaccount.Ref{Name: "bound-secret", UID: "secret-uid"}
		}), wantUser: saUser(jtiExtra), wantAuds: []string{apiAud}},
		{name: "bound to a node", token: f.bound(t, func(c *serviceaccount.Claims) {
			c.Kubernetes.Node = &serviceaccount.Ref{Name: "node-1", UID: "node-uid"}
		}), wantUser: saUser(map[string][]string{CredentialIDKey: {"JTI=jti-1"}, NodeNameKey: {"node-1"}, NodeUIDKey: {"node-uid"}}), wantAuds: []string{apiAud}},
		{name: "requested audience among several", token: f.bound(t, func(c *serviceaccount.Claims) { c.Audience = []string{"vault", apiAud} }),
			audiences: []string{"vault"}, wantUser: saUser(jtiExtra), wantAuds: []string{"vault"}},
		{name: "expired", token: f.bound(t, func(c *serviceaccount.Claims) { c.Expiry = jwt.NewNumericDate(at.Add(-2 * time.Minute)) }),
			wantErr: "service account token has expired"},
		{name: "expired within the leeway", token: f.bound(t, func(c *serviceaccount.Claims) { c.Expiry = jwt.NewNumericDate(at.Add(-30 * time.Second)) }),
			wantUser: saUser(jtiExtra), wantAuds: []string{apiAud}},
		{name: "not valid yet", token: f.bound(t, func(c *serviceaccount.Claims) { c.NotBefore = jwt.NewNumericDate(at.Add(5 * time.Minute)) }),
			wantErr: "service account token could not be validated"},
		{name: "wrong audience", token: f.bound(t, func(c *serviceaccount.Claims) { c.Audience = []string{"vault"} }),
			wantErr: `token audiences ["vault"] is invalid for the target audiences ["` + apiAud + `"]`},
		{name: "wrong requested audience", token: f.bound(t, nil), audiences: []string{"vault"},
			wantErr: `token audiences ["` + apiAud + `"] is invalid for the target audiences ["vault"]`},
		{name: "another issuer", token: mustIssue(t, "https://elsewhere", f.key), world: nil},
		{name: "not a JWT", token: "0123456789abcdef"},
		{name: "JSON serialization", token: `{"payload":"x"}.a.b`},
		{name: "signed by another key", token: other.bound(t, nil), wantErr: "invalid signature, no keys found"},
		{name: "bad signature", token: tamper(f.bound(t, nil)), wantErr: "invalid signature"},
		{name: "deleted service account", token: f.bound(t, nil), world: func(g *fakeGetter) { delete(g.sas, "ns/default") },
			wantErr: `serviceaccounts "default" not found`},
		{name: "service account recreated", token: f.bound(t, nil),
			world: func(g *fakeGetter) {
				g.sas["ns/default"] = &corev1.ServiceAccount{ObjectMeta: meta("ns", "default", "sa-uid-2", nil)}
			},
			wantErr: "service account UID (sa-uid-2) does not match claim (sa-uid)"},
		{name: "service account being deleted", token: f.bound(t, nil),
			world:   func(g *fakeGetter) { g.sas["ns/default"].DeletionTimestamp = &metav1.Time{Time: deletedLongAgo} },
			wantErr: "service account ns/default has been deleted"},
		{name: "service account deletion within the leeway", token: f.bound(t, nil),
			world:    func(g *fakeGetter) { g.sas["ns/default"].DeletionTimestamp = &metav1.Time{Time: deletedJustNow} },
			wantUser: saUser(jtiExtra), wantAuds: []string{apiAud}},
		{name: "deleted pod", token: f.bound(t, func(c *serviceaccount.Claims) {
			c.Kubernetes.Pod = &serviceaccount.Ref{Name: "web-0", UID: "pod-uid"}
		}), world: func(g *fakeGetter) { delete(g.pods, "ns/web-0") }, wantErr: "service account token has been invalidated"},
		{name: "pod recreated", token: f.bound(t, func(c *serviceaccount.Claims) {
			c.Kubernetes.Pod = &serviceaccount.Ref{Name: "web-0", UID: "old-pod-uid"}
		}), wantErr: "pod UID (pod-uid) does not match service account pod ref claim (old-pod-uid)"},
		{name: "pod being deleted", token: f.bound(t, func(c *serviceaccount.Claims) {
			c.Kubernetes.Pod = &serviceaccount.Ref{Name: "web-0", UID: "pod-uid"}
		}), world: func(g *fakeGetter) { g.pods["ns/web-0"].DeletionTimestamp = &metav1.Time{Time: deletedLongAgo} },
			wantErr: "service account token has been invalidated"},
		{name: "deleted secret", token: f.bound(t, func(c *serviceaccount.Claims) {
			c.Kubernetes.Secret = &serviceaccount.Ref{Name: "bound-secret", UID: "secret-uid"}
		}), world: func(g *fakeGetter) { delete(g.secrets, "ns/bound-secret") }, wantErr: "service account token has been invalidated"},
		{name: "secret recreated", token: f.bound(t, func(c *serviceaccount.Claims) {
			c.Kubernetes.Secret = &serviceaccount.Ref{Name: "bound-secret", UID: "old"}
		}), wantErr: "secret UID (secret-uid) does not match service account secret ref claim (old)"},
		{name: "deleted node", token: f.bound(t, func(c *serviceaccount.Claims) {
			c.Kubernetes.Node = &serviceaccount.Ref{Name: "node-1", UID: "node-uid"}
		}), world: func(g *fakeGetter) { delete(g.nodes, "node-1") }, wantErr: "service account token has been invalidated"},
		{name: "node recreated", token: f.bound(t, func(c *serviceaccount.Claims) {
			c.Kubernetes.Node = &serviceaccount.Ref{Name: "node-1", UID: "old"}
		}), wantErr: "node UID (node-uid) does not match service account node ref claim (old)"},
		{name: "pod-bound token with a deleted node", token: f.bound(t, func(c *serviceaccount.Claims) {
			c.Kubernetes.Pod = &serviceaccount.Ref{Name: "web-0", UID: "pod-uid"}
			c.Kubernetes.Node = &serviceaccount.Ref{Name: "node-1", UID: "node-uid"}
		}), world: func(g *fakeGetter) { delete(g.nodes, "node-1") }, wantUser: saUser(podExtra), wantAuds: []string{apiAud}},
		{name: "no service account claim", token: f.bound(t, func(c *serviceaccount.Claims) { c.Kubernetes = nil }),
			wantErr: "service account token could not be validated"},

		{name: "legacy", token: legacyToken, world: func(g *fakeGetter) { legacySecret(g, legacyToken) },
			wantUser: saUser(nil), wantAuds: []string{apiAud}},
		{name: "legacy without kid", token: legacyNoKid, world: func(g *fakeGetter) { legacySecret(g, legacyNoKid) },
			wantUser: saUser(nil), wantAuds: []string{apiAud}},
		{name: "legacy for another audience", token: legacyToken, world: func(g *fakeGetter) { legacySecret(g, legacyToken) },
			audiences: []string{"vault"}, wantErr: "is invalid for the target audiences"},
		{name: "legacy with its secret deleted", token: legacyToken, wantErr: "service account token has been invalidated"},
		{name: "legacy with its secret deleted, lookup off", token: legacyToken, lookupOff: true,
			wantUser: saUser(nil), wantAuds: []string{apiAud}},
		{name: "legacy not the secret's token", token: legacyToken, world: func(g *fakeGetter) { legacySecret(g, legacyNoKid) },
			wantErr: "service account token does not match server's copy"},
		{name: "legacy with the service account recreated", token: legacyToken, world: func(g *fakeGetter) {
			legacySecret(g, legacyToken)
			g.sas["ns/default"].UID = "sa-uid-2"
		}, wantErr: "service account UID (sa-uid-2) does not match claim (sa-uid)"},
		{name: "legacy invalidated by the cleaner", token: legacyToken, world: func(g *fakeGetter) {
			legacySecret(g, legacyToken)
			g.secrets["ns/default-token"].Labels = map[string]string{legacyTokenInvalidSinceLabel: "2024-01-01"}
		}, wantErr: "service account token has been invalidated"},
		{name: "legacy subject of another account", token: legacy(t, f.key, true, with(legacyClaimsFor("default-token"), "sub", "system:serviceaccount:ns:admin")),
			wantErr: "sub claim is invalid"},
		{name: "legacy without a secret name", token: legacy(t, f.key, true, with(legacyClaimsFor("default-token"), "kubernetes.io/serviceaccount/secret.name", "")),
			wantErr: "secretName claim is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := world()
			if tt.world != nil {
				tt.world(g)
			}
			a := New(Options{
				Issuers:      []string{"https://old-issuer", issuerURL},
				Keys:         []crypto.PublicKey{f.key}, // a private key stands for its public key
				APIAudiences: []string{apiAud},
				Lookup:       !tt.lookupOff,
				Getter:       g,
				Now:          func() time.Time { return at },
			})
			ctx := context.Background()
			if tt.audiences != nil {
				ctx = authenticator.WithAudiences(ctx, tt.audiences)
			}
			resp, ok, err := a.AuthenticateToken(ctx, tt.token)
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || ok {
					t.Fatalf("got ok=%v err=%v, want an error containing %q", ok, err, tt.wantErr)
				}
				if strings.Contains(err.Error(), tt.token) {
					t.Errorf("error %q repeats the token", err)
				}
			case tt.wantUser == nil:
				if ok || err != nil || resp != nil {
					t.Fatalf("got resp=%v ok=%v err=%v, want no opinion", resp, ok, err)
				}
			default:
				if err != nil || !ok {
					t.Fatalf("got ok=%v err=%v, want success", ok, err)
				}
				if diff := cmp.Diff(tt.wantUser, resp.User); diff != "" {
					t.Errorf("user (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.wantAuds, resp.Audiences); diff != "" {
					t.Errorf("audiences (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestKeyRotationAndECDSA(t *testing.T) {
	old := newFixture(t)
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecIssuer, err := serviceaccount.NewIssuer(issuerURL, ecKey)
	if err != nil {
		t.Fatal(err)
	}
	a := New(Options{
		Issuers: []string{issuerURL},
		Keys:    []crypto.PublicKey{&old.key.PublicKey, &ecKey.PublicKey},
		Getter:  world(),
		Now:     func() time.Time { return t0.Add(time.Minute) },
	})
	for name, token := range map[string]string{
		"old RSA key": old.bound(t, nil),
		"new EC key":  (&fixture{issuer: ecIssuer}).bound(t, nil),
	} {
		// without API audiences the audience is not checked, as upstream
		if _, ok, err := a.AuthenticateToken(context.Background(), token); !ok || err != nil {
			t.Errorf("%s: ok=%v err=%v, want accepted", name, ok, err)
		}
	}
}

func mustIssue(t *testing.T, url string, key crypto.Signer) string {
	t.Helper()
	iss, err := serviceaccount.NewIssuer(url, key)
	if err != nil {
		t.Fatal(err)
	}
	token, err := iss.Issue(serviceaccount.NewClaims(t0, "ns", serviceaccount.Ref{Name: "default", UID: "sa-uid"}, []string{apiAud}, time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// tamper flips the signature's last characters.
func tamper(token string) string {
	if strings.HasSuffix(token, "AAAA") {
		return token[:len(token)-4] + "BBBB"
	}
	return token[:len(token)-4] + "AAAA"
}

func with(m map[string]any, k string, v any) map[string]any {
	m[k] = v
	return m
}

func BenchmarkAuthenticateBoundToken(b *testing.B) {
	f := newFixture(b)
	token := f.bound(b, func(c *serviceaccount.Claims) { c.Kubernetes.Pod = &serviceaccount.Ref{Name: "web-0", UID: "pod-uid"} })
	a := New(Options{Issuers: []string{issuerURL}, Keys: []crypto.PublicKey{f.key.Public()}, APIAudiences: []string{apiAud},
		Getter: world(), Now: func() time.Time { return t0.Add(time.Minute) }})
	ctx := context.Background()
	for b.Loop() {
		if _, ok, err := a.AuthenticateToken(ctx, token); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
