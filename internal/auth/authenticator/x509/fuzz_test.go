package x509

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/http/httptest"
	"testing"
	"time"
)

// fuzzCA is a CA without a common name, so that even its own certificate
// presented as a client certificate names nobody.
type fuzzCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newFuzzCA(f *testing.F) fuzzCA {
	f.Helper()
	key := fuzzKey(f)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{Organization: []string{"fuzz"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		f.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		f.Fatal(err)
	}
	return fuzzCA{cert: cert, key: key}
}

func fuzzKey(f *testing.F) *ecdsa.PrivateKey {
	f.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		f.Fatal(err)
	}
	return key
}

// issue returns the DER of a leaf for cn signed by ca.
func (ca fuzzCA) issue(f *testing.F, serial int64, cn string, usages ...x509.ExtKeyUsage) []byte {
	f.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: cn, Organization: []string{"system:masters"}},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  usages,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, fuzzKey(f).Public(), ca.key)
	if err != nil {
		f.Fatal(err)
	}
	return der
}

// FuzzParseCertificateChain presents arbitrary DER (one or more
// concatenated certificates: leaf first, then intermediates) as the peer
// chain. Nothing the fuzzer can build without the CA key may authenticate,
// and nothing may panic. The seeds are near misses: certificates from
// another CA, for the wrong usage, without a name, and broken DER.
func FuzzParseCertificateChain(f *testing.F) {
	trusted := newFuzzCA(f)
	other := newFuzzCA(f)
	serverOnly := trusted.issue(f, 2, "admin", x509.ExtKeyUsageServerAuth)
	noName := trusted.issue(f, 3, "", x509.ExtKeyUsageClientAuth)
	foreign := other.issue(f, 4, "admin", x509.ExtKeyUsageClientAuth)
	for _, seed := range [][]byte{
		serverOnly, noName, foreign, trusted.cert.Raw, other.cert.Raw,
		append(append([]byte{}, foreign...), other.cert.Raw...),
		append(append([]byte{}, foreign...), trusted.cert.Raw...),
		serverOnly[:len(serverOnly)/2], {}, {0x30, 0x82, 0xff, 0xff}, {0x30, 0x00},
	} {
		f.Add(seed)
	}
	a := New(func() *x509.CertPool {
		p := x509.NewCertPool()
		p.AddCert(trusted.cert)
		return p
	}())
	f.Fuzz(func(t *testing.T, der []byte) {
		chain, err := x509.ParseCertificates(der)
		if err != nil || len(chain) == 0 {
			return
		}
		req := httptest.NewRequest("GET", "https://kapi/api", nil)
		req.TLS = &tls.ConnectionState{PeerCertificates: chain}
		resp, ok, err := a.AuthenticateRequest(req)
		if ok {
			t.Fatalf("forged chain authenticated as %q (err %v)", resp.User.GetName(), err)
		}
		if resp != nil {
			t.Fatalf("response %+v without ok", resp)
		}
	})
}
