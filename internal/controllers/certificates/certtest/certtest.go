// Package certtest makes certificate requests for the tests of the CSR
// controllers.
package certtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"net"
)

// RequestTemplate describes a certificate request for tests.
type RequestTemplate struct {
	CommonName    string
	Organizations []string
	DNSNames      []string
	IPs           []net.IP
}

// NewRequestPEM makes a signed PEM CERTIFICATE REQUEST for tests.
func NewRequestPEM(t RequestTemplate) ([]byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject:  pkix.Name{CommonName: t.CommonName, Organization: t.Organizations},
		DNSNames: t.DNSNames, IPAddresses: t.IPs,
	}, key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}), nil
}
