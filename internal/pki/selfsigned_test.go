package pki

import (
	"crypto/ecdsa"
	"crypto/x509"
	"testing"
)

// The certificate verifies, against itself, for its name only.
func TestSelfSigned(t *testing.T) {
	cert, certPEM, err := SelfSigned("apiserver-loopback-client")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cert.PrivateKey.(*ecdsa.PrivateKey); !ok {
		t.Errorf("key is %T, want ECDSA", cert.PrivateKey)
	}
	pool, err := CertPoolFromPEM(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ok   bool
	}{{"apiserver-loopback-client", true}, {"localhost", false}, {"127.0.0.1", false}} {
		_, err := cert.Leaf.Verify(x509.VerifyOptions{DNSName: tc.name, Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
		if (err == nil) != tc.ok {
			t.Errorf("verify for %q: %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}
