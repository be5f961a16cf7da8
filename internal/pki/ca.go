package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// CA is a certificate authority that signs kapi's generated certificates.
type CA struct {
	// Cert is the CA certificate; CertPEM its PEM encoding, as written to
	// ca.crt and embedded in kubeconfigs.
	Cert    *x509.Certificate
	CertPEM []byte

	key  crypto.Signer
	opts options
}

// EnsureCA loads the CA from dir, or creates it when ca.crt is absent or
// about to expire. A CA that is present but unreadable is an error, never
// silently replaced: replacing it would invalidate every credential it
// signed.
func EnsureCA(dir string, opts ...Option) (*CA, error) {
	o := buildOptions(opts)
	p, err := readPair(dir, CACertFile, CAKeyFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return newCA(dir, o)
	case err != nil:
		return nil, fmt.Errorf("loading the CA (remove %s and %s to generate a new one): %w",
			filepath.Join(dir, CACertFile), filepath.Join(dir, CAKeyFile), err)
	}
	if !p.cert.IsCA || p.cert.KeyUsage&x509.KeyUsageCertSign == 0 {
		return nil, fmt.Errorf("%s is not a CA certificate", filepath.Join(dir, CACertFile))
	}
	if !fresh(p.cert, o) {
		// An expiring CA cannot sign anything useful, so its credentials
		// are lost either way.
		return newCA(dir, o)
	}
	return &CA{Cert: p.cert, CertPEM: p.certPEM, key: p.key, opts: o}, nil
}

func newCA(dir string, o options) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := o.now()
	tmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: CAName},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(CAValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("creating the CA certificate: %w", err)
	}
	p, err := newPair(der, key)
	if err != nil {
		return nil, err
	}
	if err := writePair(dir, CACertFile, CAKeyFile, p, !o.noSync); err != nil {
		return nil, err
	}
	return &CA{Cert: p.cert, CertPEM: p.certPEM, key: key, opts: o}, nil
}

// CertPool returns a pool holding only this CA, for verifying what it signed.
func (ca *CA) CertPool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	return pool
}

// fresh reports whether cert is valid now and for longer than RenewBefore.
func fresh(cert *x509.Certificate, o options) bool {
	now := o.now()
	return !now.Before(cert.NotBefore) && now.Add(RenewBefore).Before(cert.NotAfter)
}

func newPair(der []byte, key *ecdsa.PrivateKey) (*pair, error) {
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	keyPEM, err := encodeKey(key)
	if err != nil {
		return nil, err
	}
	return &pair{cert: cert, key: key, certPEM: encodeCert(der), keyPEM: keyPEM}, nil
}
