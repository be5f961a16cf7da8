package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func pemBlock(t *testing.T, typ string, der []byte) []byte {
	t.Helper()
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func pkcs8(t *testing.T, key any) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func TestLoadSigningKey(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecDER, err := x509.MarshalECPrivateKey(ecKey)
	if err != nil {
		t.Fatal(err)
	}
	ecParams := pemBlock(t, "EC PARAMETERS", []byte{0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07})
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		data    []byte
		want    crypto.PublicKey
		wantErr string
	}{
		{name: "RSA PKCS#1", data: pemBlock(t, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(rsaKey)), want: &rsaKey.PublicKey},
		{name: "RSA PKCS#8", data: pemBlock(t, "PRIVATE KEY", pkcs8(t, rsaKey)), want: &rsaKey.PublicKey},
		{name: "EC SEC 1 after EC PARAMETERS", data: append(ecParams, pemBlock(t, "EC PRIVATE KEY", ecDER)...), want: &ecKey.PublicKey},
		{name: "EC PKCS#8", data: pemBlock(t, "PRIVATE KEY", pkcs8(t, ecKey)), want: &ecKey.PublicKey},
		{name: "not PEM", data: []byte("hello"), wantErr: "no PEM data found"},
		{name: "only a certificate block", data: pemBlock(t, "CERTIFICATE", []byte{1}), wantErr: "does not contain a valid RSA or ECDSA private key"},
		{name: "corrupt RSA", data: pemBlock(t, "RSA PRIVATE KEY", []byte{1, 2, 3}), wantErr: "parsing RSA private key"},
		{name: "ed25519", data: pemBlock(t, "PRIVATE KEY", pkcs8(t, edKey)), wantErr: "ed25519 keys cannot sign"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sa.key")
			if err := os.WriteFile(path, tt.data, 0o600); err != nil {
				t.Fatal(err)
			}
			// generateAt is ignored when a file is given
			key, err := LoadOrGenerateSigningKey(path, filepath.Join(t.TempDir(), "unused"))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), path) {
					t.Fatalf("err = %v, want one naming %s and containing %q", err, path, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !key.Public().(interface{ Equal(crypto.PublicKey) bool }).Equal(tt.want) {
				t.Errorf("loaded another key than the one written")
			}
		})
	}
}

func TestLoadSigningKeyMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing.key")
	_, err := LoadOrGenerateSigningKey(path, "")
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want one naming %s", err, path)
	}
	if _, err := LoadOrGenerateSigningKey("", ""); err == nil {
		t.Error("no file and no place to generate: want an error")
	}
}

func TestGenerateSigningKeyPersistsAndReuses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pki", "sa.key")
	first, err := LoadOrGenerateSigningKey("", path)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, ok := first.(*ecdsa.PrivateKey)
	if !ok || ecKey.Curve != elliptic.P256() {
		t.Fatalf("generated %T, want an ECDSA P-256 key", first)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", info.Mode().Perm())
	}
	second, err := LoadOrGenerateSigningKey("", path)
	if err != nil {
		t.Fatal(err)
	}
	if !ecKey.Equal(second) {
		t.Error("a second start generated a new key instead of reusing the kept one")
	}
	// a corrupt kept key is an error, not silently replaced
	if err := os.WriteFile(path, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrGenerateSigningKey("", path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v, want one naming %s", err, path)
	}
}
