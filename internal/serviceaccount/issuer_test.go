package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/go-cmp/cmp"
)

const testIssuer = "https://kubernetes.default.svc.cluster.local"

var (
	t0      = time.Unix(1_700_000_000, 0)
	testSA  = Ref{Name: "default", UID: "sa-uid"}
	testPod = &Ref{Name: "web-0", UID: "pod-uid"}
)

func rsaKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func newTestIssuer(t *testing.T, key crypto.Signer, now time.Time) *Issuer {
	t.Helper()
	i, err := NewIssuer(testIssuer, key)
	if err != nil {
		t.Fatal(err)
	}
	return i.WithClock(func() time.Time { return now })
}

// segment decodes one part of a compact JWT.
func segment(t *testing.T, token string, n int) string {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token has %d parts, want 3", len(parts))
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[n])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestIssueClaimsShape(t *testing.T) {
	key := rsaKey(t)
	iss := newTestIssuer(t, key, t0)
	c := NewClaims(t0, "ns", testSA, []string{testIssuer}, time.Hour)
	c.ID = "3d1b1c6e-jti"
	c.Kubernetes.Pod = testPod
	c.Kubernetes.Node = &Ref{Name: "node-1", UID: "node-uid"}
	c.Kubernetes.WarnAfter = jwt.NewNumericDate(t0.Add(time.Hour))
	token, err := iss.Issue(c)
	if err != nil {
		t.Fatal(err)
	}

	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(der)
	kid := base64.RawURLEncoding.EncodeToString(sum[:])
	if got, want := segment(t, token, 0), `{"alg":"RS256","kid":"`+kid+`"}`; got != want {
		t.Errorf("header = %s, want %s", got, want)
	}
	// one audience is still a list, as in kube-apiserver's tokens
	want := `{"aud":["https://kubernetes.default.svc.cluster.local"],"exp":1700003600,"iat":1700000000,` +
		`"iss":"https://kubernetes.default.svc.cluster.local","jti":"3d1b1c6e-jti",` +
		`"kubernetes.io":{"namespace":"ns","node":{"name":"node-1","uid":"node-uid"},"pod":{"name":"web-0","uid":"pod-uid"},` +
		`"serviceaccount":{"name":"default","uid":"sa-uid"},"warnafter":1700003600},` +
		`"nbf":1700000000,"sub":"system:serviceaccount:ns:default"}`
	if got := segment(t, token, 1); got != want {
		t.Errorf("payload:\n got %s\nwant %s", got, want)
	}
	if c.Issuer != "" {
		t.Error("Issue changed the caller's claims")
	}
}

func TestIssueSetsUniqueJTI(t *testing.T) {
	iss := newTestIssuer(t, rsaKey(t), t0)
	ids := map[string]bool{}
	for range 2 {
		token, err := iss.Issue(NewClaims(t0, "ns", testSA, nil, time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		var c Claims
		if err := json.Unmarshal([]byte(segment(t, token, 1)), &c); err != nil {
			t.Fatal(err)
		}
		if c.ID == "" || ids[c.ID] {
			t.Errorf("jti %q empty or repeated", c.ID)
		}
		ids[c.ID] = true
	}
}

func TestIssueValidateRoundTrip(t *testing.T) {
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		key  crypto.Signer
		alg  string
	}{
		{name: "rsa", key: rsaKey(t), alg: "RS256"},
		{name: "ecdsa", key: ecKey, alg: "ES256"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			iss := newTestIssuer(t, tt.key, t0.Add(30*time.Minute))
			if iss.Algorithm() != tt.alg {
				t.Errorf("alg = %s, want %s", iss.Algorithm(), tt.alg)
			}
			c := NewClaims(t0, "ns", testSA, []string{"api", "vault"}, time.Hour)
			c.Kubernetes.Pod = testPod
			token, err := iss.Issue(c)
			if err != nil {
				t.Fatal(err)
			}
			got, err := iss.Validate(token, []string{"vault"})
			if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			want := *c
			want.Issuer, want.ID = testIssuer, got.ID
			if diff := cmp.Diff(&want, got); diff != "" {
				t.Errorf("claims (-want +got):\n%s", diff)
			}
			if !strings.Contains(segment(t, token, 0), `"alg":"`+tt.alg+`"`) {
				t.Errorf("header %s lacks alg %s", segment(t, token, 0), tt.alg)
			}
			if keys := iss.KeySet().Keys; len(keys) != 1 || keys[0].KeyID != iss.KeyID() || keys[0].Algorithm != tt.alg {
				t.Errorf("key set = %+v", keys)
			}
		})
	}
}

func TestValidateRejects(t *testing.T) {
	key := rsaKey(t)
	iss := newTestIssuer(t, key, t0)
	issue := func(i *Issuer, c *Claims) string {
		t.Helper()
		token, err := i.Issue(c)
		if err != nil {
			t.Fatal(err)
		}
		return token
	}
	valid := func() *Claims { return NewClaims(t0.Add(-time.Minute*30), "ns", testSA, []string{"api"}, time.Hour) }
	otherIssuer, err := NewIssuer("https://elsewhere", key)
	if err != nil {
		t.Fatal(err)
	}
	otherKey := newTestIssuer(t, rsaKey(t), t0)
	noSA := valid()
	noSA.Kubernetes = nil
	wrongSubject := valid()
	wrongSubject.Subject = "system:serviceaccount:ns:admin"
	tampered := issue(iss, valid())
	tampered = tampered[:len(tampered)-4] + "AAAA"
	tests := []struct {
		name      string
		token     string
		audiences []string
		wantErr   error
		wantText  string
	}{
		{name: "not a JWT", token: "abc.def", wantErr: ErrNotServiceAccountToken},
		{name: "another issuer", token: issue(otherIssuer, valid()), wantErr: ErrNotServiceAccountToken},
		{name: "signed by another key", token: issue(otherKey, valid()), wantErr: ErrInvalidToken, wantText: "signature"},
		{name: "tampered signature", token: tampered, wantErr: ErrInvalidToken, wantText: "signature"},
		{name: "expired", token: issue(iss, NewClaims(t0.Add(-2*time.Hour), "ns", testSA, []string{"api"}, time.Hour)), wantErr: ErrInvalidToken, wantText: "expired"},
		{name: "not valid yet", token: issue(iss, NewClaims(t0.Add(5*time.Minute), "ns", testSA, []string{"api"}, time.Hour)), wantErr: ErrInvalidToken, wantText: "not valid yet"},
		{name: "wrong audience", token: issue(iss, valid()), audiences: []string{"vault"}, wantErr: ErrInvalidToken, wantText: `token audiences ["api"] is invalid for the target audiences ["vault"]`},
		{name: "no service account", token: issue(iss, noSA), wantErr: ErrInvalidToken, wantText: "names no service account"},
		{name: "subject of another account", token: issue(iss, wrongSubject), wantErr: ErrInvalidToken, wantText: "subject"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := iss.Validate(tt.token, tt.audiences)
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("err = %v, want %v containing %q", err, tt.wantErr, tt.wantText)
			}
		})
	}
	// within the minute of leeway an expired token still passes
	if _, err := newTestIssuer(t, key, t0.Add(30*time.Second)).Validate(issue(iss, NewClaims(t0.Add(-time.Hour), "ns", testSA, nil, time.Hour)), nil); err != nil {
		t.Errorf("token expired 30s ago: %v, want accepted within the leeway", err)
	}
}

func TestNewIssuerErrors(t *testing.T) {
	p224, err := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		url string
		key crypto.Signer
	}{
		"no url":      {url: "", key: rsaKey(t)},
		"no key":      {url: testIssuer},
		"P-224 curve": {url: testIssuer, key: p224},
	} {
		if _, err := NewIssuer(tc.url, tc.key); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}
