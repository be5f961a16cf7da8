package oidc

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/leakcheck"
)

// TestMain fails the package when the discovery goroutine outlives the
// context that owns it.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Main(m, "authenticator/oidc.New"))
}

const clientID = "kapi"

var t0 = time.Unix(1_700_000_000, 0)

// testIssuer is an OpenID provider: discovery, a key set and a key.
type testIssuer struct {
	srv    *httptest.Server
	key    *rsa.PrivateKey
	caFile string
	up     atomic.Bool
	// refused gets a value (when someone listens) each time discovery is
	// refused because the issuer is down.
	refused chan struct{}
}

func newTestIssuer(t testing.TB, up bool) *testIssuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ti := &testIssuer{key: key, refused: make(chan struct{})}
	ti.up.Store(up)
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		if !ti.up.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			select {
			case ti.refused <- struct{}{}:
			default:
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer":                                ti.srv.URL,
			"jwks_uri":                              ti.srv.URL + "/keys",
			"response_types_supported":              []string{"id_token"},
			"subject_types_supported":               []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"},
		})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
			{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"},
		}})
	})
	ti.srv = httptest.NewTLSServer(mux)
	t.Cleanup(ti.srv.Close)
	ti.caFile = filepath.Join(t.TempDir(), "ca.crt")
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ti.srv.Certificate().Raw})
	if err := os.WriteFile(ti.caFile, ca, 0o600); err != nil {
		t.Fatal(err)
	}
	return ti
}

// claims are a valid token's: issued at t0 for an hour to clientID.
func (ti *testIssuer) claims() map[string]any {
	return map[string]any{
		"iss": ti.srv.URL,
		"aud": clientID,
		"sub": "alice",
		"iat": t0.Unix(),
		"exp": t0.Add(time.Hour).Unix(),
	}
}

func sign(t testing.TB, key *rsa.PrivateKey, claims map[string]any) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key},
		(&jose.SignerOptions{}).WithHeader("kid", "k1"))
	if err != nil {
		t.Fatal(err)
	}
	token, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// start returns an initialized authenticator for ti, stopped when the
// test ends.
func start(t testing.TB, ti *testIssuer, o Options) *tokenAuthenticator {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	o.IssuerURL, o.ClientID, o.CAFile = ti.srv.URL, clientID, ti.caFile
	if o.Now == nil {
		o.Now = func() time.Time { return t0.Add(time.Minute) }
	}
	tok, err := New(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	a := tok.(*tokenAuthenticator)
	waitInitialized(t, a)
	return a
}

func waitInitialized(t testing.TB, a *tokenAuthenticator) {
	t.Helper()
	select {
	case <-a.initialized:
	case <-time.After(time.Minute): // a hang, not a timing threshold
		t.Fatal("discovery never succeeded")
	}
}

func TestAuthenticateToken(t *testing.T) {
	ti := newTestIssuer(t, true)
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	iss := ti.srv.URL
	tests := []struct {
		name      string
		opts      Options
		edit      func(c map[string]any)
		key       *rsa.PrivateKey
		token     string // instead of a signed edit
		want      *user.DefaultInfo
		wantErr   string // "" with no user = no opinion
		noOpinion bool
	}{
		{name: "sub with the default prefix", want: &user.DefaultInfo{Name: iss + "#alice"}},
		{name: "no prefix", opts: Options{UsernamePrefix: "-"}, want: &user.DefaultInfo{Name: "alice"}},
		{name: "own prefix", opts: Options{UsernamePrefix: "oidc:"}, want: &user.DefaultInfo{Name: "oidc:alice"}},
		{name: "audience among several", edit: func(c map[string]any) { c["aud"] = []string{"other", clientID} },
			want: &user.DefaultInfo{Name: iss + "#alice"}},
		{name: "email is not prefixed by default", opts: Options{UsernameClaim: "email"},
			edit: func(c map[string]any) { c["email"] = "alice@example.com" }, want: &user.DefaultInfo{Name: "alice@example.com"}},
		{name: "email verified", opts: Options{UsernameClaim: "email"},
			edit: func(c map[string]any) { c["email"], c["email_verified"] = "alice@example.com", true }, want: &user.DefaultInfo{Name: "alice@example.com"}},
		{name: "email not verified", opts: Options{UsernameClaim: "email"},
			edit: func(c map[string]any) { c["email"], c["email_verified"] = "alice@example.com", false }, wantErr: "oidc: email not verified"},
		{name: "email prefixed when asked", opts: Options{UsernameClaim: "email", UsernamePrefix: "oidc:"},
			edit: func(c map[string]any) { c["email"] = "alice@example.com" }, want: &user.DefaultInfo{Name: "oidc:alice@example.com"}},
		{name: "groups list", opts: Options{UsernamePrefix: "-", GroupsClaim: "groups", GroupsPrefix: "oidc:"},
			edit: func(c map[string]any) { c["groups"] = []string{"admins", "devs"} },
			want: &user.DefaultInfo{Name: "alice", Groups: []string{"oidc:admins", "oidc:devs"}}},
		{name: "groups string", opts: Options{UsernamePrefix: "-", GroupsClaim: "role"},
			edit: func(c map[string]any) { c["role"] = "admins" }, want: &user.DefaultInfo{Name: "alice", Groups: []string{"admins"}}},
		{name: "groups claim absent", opts: Options{UsernamePrefix: "-", GroupsClaim: "groups"}, want: &user.DefaultInfo{Name: "alice"}},
		{name: "groups of another type", opts: Options{GroupsClaim: "groups"},
			edit: func(c map[string]any) { c["groups"] = 42 }, wantErr: `oidc: parse groups claim "groups"`},
		{name: "jti names the credential", opts: Options{UsernamePrefix: "-"}, edit: func(c map[string]any) { c["jti"] = "id-1" },
			want: &user.DefaultInfo{Name: "alice", Extra: map[string][]string{credentialIDKey: {"JTI=id-1"}}}},
		{name: "required claims present", opts: Options{UsernamePrefix: "-", RequiredClaims: map[string]string{"hd": "example.com"}},
			edit: func(c map[string]any) { c["hd"] = "example.com" }, want: &user.DefaultInfo{Name: "alice"}},
		{name: "required claim missing", opts: Options{RequiredClaims: map[string]string{"hd": "example.com"}},
			wantErr: "oidc: required claim hd not present in ID token"},
		{name: "required claim differs", opts: Options{RequiredClaims: map[string]string{"hd": "example.com"}},
			edit: func(c map[string]any) { c["hd"] = "evil.com" }, wantErr: "oidc: required claim hd value does not match. Got = evil.com, want = example.com"},
		{name: "username claim missing", opts: Options{UsernameClaim: "email"}, wantErr: `oidc: parse username claims "email": claim not present`},
		{name: "expired", edit: func(c map[string]any) { c["exp"] = t0.Add(-time.Minute).Unix() }, wantErr: "token is expired"},
		{name: "wrong audience", edit: func(c map[string]any) { c["aud"] = "other" }, wantErr: `oidc: expected audience in ["kapi"] got ["other"]`},
		{name: "signed by another key", key: other, wantErr: "oidc: verify token"},
		{name: "another algorithm than allowed", opts: Options{SigningAlgs: []string{"ES256"}}, wantErr: "oidc: verify token"},
		{name: "wrong issuer", edit: func(c map[string]any) { c["iss"] = "https://elsewhere.example.com" }, noOpinion: true},
		{name: "not a JWT", token: "abcdef", noOpinion: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := start(t, ti, tt.opts)
			token := tt.token
			if token == "" {
				c := ti.claims()
				if tt.edit != nil {
					tt.edit(c)
				}
				key := ti.key
				if tt.key != nil {
					key = tt.key
				}
				token = sign(t, key, c)
			}
			resp, ok, err := a.AuthenticateToken(context.Background(), token)
			switch {
			case tt.noOpinion:
				if ok || err != nil {
					t.Fatalf("ok=%v err=%v, want no opinion", ok, err)
				}
			case tt.wantErr != "":
				if ok || err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ok=%v err=%v, want an error containing %q", ok, err, tt.wantErr)
				}
			default:
				if !ok || err != nil {
					t.Fatalf("ok=%v err=%v, want success", ok, err)
				}
				if diff := cmp.Diff(tt.want, resp.User); diff != "" {
					t.Errorf("user (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// An issuer that is down when the server starts is retried until it is up.
func TestIssuerDownAtStart(t *testing.T) {
	ti := newTestIssuer(t, false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tok, err := New(ctx, Options{IssuerURL: ti.srv.URL, ClientID: clientID, CAFile: ti.caFile,
		Now: func() time.Time { return t0 }, retryInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	a := tok.(*tokenAuthenticator)
	token := sign(t, ti.key, ti.claims())

	<-ti.refused // discovery was tried and refused
	if _, ok, err := a.AuthenticateToken(ctx, token); ok || err == nil || err.Error() != "oidc: authenticator not initialized" {
		t.Fatalf("before discovery: ok=%v err=%v, want not initialized", ok, err)
	}
	<-ti.refused // and is being retried
	ti.up.Store(true)
	waitInitialized(t, a)
	if resp, ok, err := a.AuthenticateToken(ctx, token); !ok || err != nil || resp.User.GetName() != ti.srv.URL+"#alice" {
		t.Fatalf("after discovery: resp=%v ok=%v err=%v", resp, ok, err)
	}
}

func TestNewErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{name: "no issuer", o: Options{ClientID: "c"}, want: "issuer URL is empty"},
		{name: "http issuer", o: Options{IssuerURL: "http://idp", ClientID: "c"}, want: "must use https scheme"},
		{name: "no client", o: Options{IssuerURL: "https://idp"}, want: "client ID is empty"},
		{name: "bad algorithm", o: Options{IssuerURL: "https://idp", ClientID: "c", SigningAlgs: []string{"none"}}, want: `unsupported signing alg: "none"`},
		{name: "missing CA file", o: Options{IssuerURL: "https://idp", ClientID: "c", CAFile: filepath.Join(t.TempDir(), "nope")}, want: "failed to read the CA file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(ctx, tt.o); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func BenchmarkAuthenticateToken(b *testing.B) {
	ti := newTestIssuer(b, true)
	a := start(b, ti, Options{GroupsClaim: "groups"})
	c := ti.claims()
	c["groups"] = []string{"a", "b"}
	token := sign(b, ti.key, c)
	ctx := context.Background()
	for b.Loop() {
		if _, ok, err := a.AuthenticateToken(ctx, token); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
