package discovery

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/kapi-dev/kapi/internal/serviceaccount"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// loadKey reads a PEM public key from testdata: fixed keys keep the
// golden documents stable.
func loadKey(t *testing.T, name string) crypto.PublicKey {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatalf("%s: no PEM data", name)
	}
	key, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func get(t *testing.T, h http.Handler, method string) *http.Response {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, "/", nil))
	return rec.Result()
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s:\n got %s\nwant %s", name, got, want)
	}
}

func TestDocuments(t *testing.T) {
	rsaKey, ecKey := loadKey(t, "rsa.pub.pem"), loadKey(t, "ec.pub.pem")
	tests := []struct {
		name, issuer, jwksURI string
		keys                  []crypto.PublicKey
		wantJWKSURI           string
	}{
		{name: "rsa", issuer: "https://kubernetes.default.svc.cluster.local", keys: []crypto.PublicKey{rsaKey},
			wantJWKSURI: "https://kubernetes.default.svc.cluster.local/openid/v1/jwks"},
		{name: "rsa-and-ec", issuer: "https://issuer.example.com/cluster/", jwksURI: "https://keys.example.com/jwks",
			keys: []crypto.PublicKey{ecKey, rsaKey}, wantJWKSURI: "https://keys.example.com/jwks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			handlers, err := NewHandlers(tt.issuer, tt.jwksURI, tt.keys)
			if err != nil {
				t.Fatal(err)
			}
			if len(handlers) != 2 {
				t.Fatalf("handlers for %d paths, want 2", len(handlers))
			}
			for path, wantType := range map[string]string{OpenIDConfigPath: "application/json", JWKSPath: "application/jwk-set+json"} {
				resp := get(t, handlers[path], http.MethodGet)
				body, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != wantType ||
					resp.Header.Get("Cache-Control") != "public, max-age=3600" {
					t.Errorf("%s: status %d, headers %v", path, resp.StatusCode, resp.Header)
				}
				golden(t, tt.name+"-"+strings.NewReplacer("/", "_", ".", "").Replace(path)+".json", body)
				if path == OpenIDConfigPath {
					var doc metadata
					if err := json.Unmarshal(body, &doc); err != nil || doc.Issuer != tt.issuer || doc.JWKSURI != tt.wantJWKSURI {
						t.Errorf("config %s (err %v), want issuer %s and jwks_uri %s", body, err, tt.issuer, tt.wantJWKSURI)
					}
					continue
				}
				var set jose.JSONWebKeySet
				if err := json.Unmarshal(body, &set); err != nil || len(set.Keys) != len(tt.keys) {
					t.Fatalf("key set %s (err %v), want %d keys", body, err, len(tt.keys))
				}
				for _, k := range set.Keys {
					if !k.IsPublic() {
						t.Errorf("key %s is not public", k.KeyID)
					}
				}
			}
		})
	}
}

// The key set names each key by the kid the issuer writes in its tokens,
// so a relying party finds the key for a token.
func TestKeySetMatchesIssuer(t *testing.T) {
	// a private key stands for its public key
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	iss, err := serviceaccount.NewIssuer("https://issuer.example.com", key)
	if err != nil {
		t.Fatal(err)
	}
	handlers, err := NewHandlers(iss.URL(), "", []crypto.PublicKey{key})
	if err != nil {
		t.Fatal(err)
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(get(t, handlers[JWKSPath], http.MethodGet).Body).Decode(&set); err != nil {
		t.Fatal(err)
	}
	if keys := set.Key(iss.KeyID()); len(keys) != 1 || keys[0].Algorithm != "ES256" || keys[0].Use != "sig" ||
		!keys[0].Key.(*ecdsa.PublicKey).Equal(&key.PublicKey) {
		t.Errorf("key set %+v lacks the issuer's key %s", set, iss.KeyID())
	}
}

func TestMethods(t *testing.T) {
	handlers, err := NewHandlers("https://issuer.example.com", "", []crypto.PublicKey{loadKey(t, "ec.pub.pem")})
	if err != nil {
		t.Fatal(err)
	}
	for method, want := range map[string]int{http.MethodGet: 200, http.MethodHead: 200, http.MethodPost: 405, http.MethodDelete: 405} {
		if got := get(t, handlers[OpenIDConfigPath], method).StatusCode; got != want {
			t.Errorf("%s: status %d, want %d", method, got, want)
		}
	}
}

func TestNewHandlersErrors(t *testing.T) {
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	good := []crypto.PublicKey{loadKey(t, "ec.pub.pem")}
	tests := []struct {
		name, issuer, jwksURI string
		keys                  []crypto.PublicKey
		want                  string
	}{
		{name: "no issuer", keys: good, want: "empty issuer URL"},
		{name: "http issuer", issuer: "http://issuer", keys: good, want: "issuer URL must use https scheme, got: http://issuer"},
		{name: "query", issuer: "https://issuer?a=b", keys: good, want: "issuer URL may not include a query"},
		{name: "fragment", issuer: "https://issuer#x", keys: good, want: "issuer URL may not include a fragment"},
		{name: "http jwks", issuer: "https://issuer", jwksURI: "http://keys", keys: good, want: "jwksURI requires https scheme"},
		{name: "no keys", issuer: "https://issuer", want: "no keys provided"},
		{name: "ed25519 key", issuer: "https://issuer", keys: []crypto.PublicKey{edKey.Public()}, want: "error constructing JWK for key #0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewHandlers(tt.issuer, tt.jwksURI, tt.keys); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}
