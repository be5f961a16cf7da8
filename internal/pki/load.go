package pki

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// LoadKeyPair loads a user-given serving certificate (--tls-cert-file) and
// its key (--tls-private-key-file). The certificate file may hold the chain
// after the leaf.
func LoadKeyPair(certFile, keyFile string) (tls.Certificate, error) {
	c, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("loading --tls-cert-file %q and --tls-private-key-file %q: %w", certFile, keyFile, err)
	}
	return c, nil
}

// LoadCertPool reads a CA bundle (such as --client-ca-file) and returns it
// as a pool along with its PEM bytes, which kubeconfigs and the
// extension-apiserver-authentication ConfigMap carry verbatim.
func LoadCertPool(file string) (*x509.CertPool, []byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	pool, err := CertPoolFromPEM(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	return pool, data, nil
}

// CertPoolFromPEM returns a pool of every certificate in data; data without
// any certificate is an error, because an empty pool would silently reject
// every client.
func CertPoolFromPEM(data []byte) (*x509.CertPool, error) {
	certs, err := ParseCertsPEM(data)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool, nil
}
