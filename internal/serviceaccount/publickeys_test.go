package serviceaccount

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"
)

func TestParsePublicKeysPEM(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pkix_, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	ecDER, _ := x509.MarshalECPrivateKey(key)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sa"}, NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
	certDER, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	block := func(typ string, b []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}) }
	cases := []struct {
		name string
		data []byte
		keys int
		ok   bool
	}{
		{"public key", block("PUBLIC KEY", pkix_), 1, true},
		{"private key", block("EC PRIVATE KEY", ecDER), 1, true},
		{"certificate", block("CERTIFICATE", certDER), 1, true},
		{"all three", append(append(block("PUBLIC KEY", pkix_), block("EC PRIVATE KEY", ecDER)...), block("CERTIFICATE", certDER)...), 3, true},
		{"nothing", []byte("not pem"), 0, false},
		{"broken public key", block("PUBLIC KEY", []byte{1, 2, 3}), 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			keys, err := ParsePublicKeysPEM(c.data)
			if (err == nil) != c.ok || len(keys) != c.keys {
				t.Fatalf("got %d keys, err %v; want %d, ok %v", len(keys), err, c.keys, c.ok)
			}
			for _, k := range keys {
				if !key.PublicKey.Equal(k) {
					t.Errorf("key %T is not the generated one", k)
				}
			}
		})
	}
}
