package requestheader

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"testing"
	"time"
)

// issuer is a test CA.
type issuer struct {
	cert *x509.Certificate
	key  crypto.Signer
}

var serial int64

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// sign issues tmpl for key, from parent (self-signed when parent is nil).
func sign(t testing.TB, tmpl *x509.Certificate, key *ecdsa.PrivateKey, parent *issuer) *x509.Certificate {
	t.Helper()
	serial++
	tmpl.SerialNumber = big.NewInt(serial)
	if tmpl.NotBefore.IsZero() {
		tmpl.NotBefore = time.Now().Add(-time.Hour)
		tmpl.NotAfter = time.Now().Add(time.Hour)
	}
	parentCert, parentKey := tmpl, crypto.Signer(key)
	if parent != nil {
		parentCert, parentKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parentCert, key.Public(), parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

func newCA(t testing.TB, name string, parent *issuer) *issuer {
	t.Helper()
	key := newKey(t)
	cert := sign(t, &x509.Certificate{
		Subject:               pkix.Name{CommonName: name},
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}, key, parent)
	return &issuer{cert: cert, key: key}
}

// leaf issues a certificate for cn from ca with the given extended usages.
func (ca *issuer) leaf(t testing.TB, cn string, usages ...x509.ExtKeyUsage) *x509.Certificate {
	t.Helper()
	return sign(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: cn},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: usages,
	}, newKey(t), ca)
}

func (ca *issuer) expiredLeaf(t testing.TB, cn string) *x509.Certificate {
	t.Helper()
	return sign(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: cn},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		NotBefore:   time.Now().Add(-2 * time.Hour),
		NotAfter:    time.Now().Add(-time.Hour),
	}, newKey(t), ca)
}

func (ca *issuer) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}
