package cli

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/kapi-dev/kapi/internal/pki"
)

// Files kube-apiserver serves from --cert-dir.
const (
	upstreamServingCert = "apiserver.crt"
	upstreamServingKey  = "apiserver.key"
)

// ensureSelfSignedServing returns apiserver.crt and apiserver.key in dir,
// as kube-apiserver does: used as they are when both exist (envtest puts
// its own there), otherwise a self-signed pair for hosts is written.
func ensureSelfSignedServing(dir string, hosts []string) (certFile, keyFile string, err error) {
	certFile, keyFile = filepath.Join(dir, upstreamServingCert), filepath.Join(dir, upstreamServingKey)
	_, certErr := os.Stat(certFile)
	_, keyErr := os.Stat(keyFile)
	if certErr == nil && keyErr == nil {
		return certFile, keyFile, nil
	}
	if !errors.Is(certErr, fs.ErrNotExist) && certErr != nil {
		return "", "", fmt.Errorf("--cert-dir: %w", certErr)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", fmt.Errorf("--cert-dir: %w", err)
	}
	certPEM, keyPEM, err := selfSignedServing(hosts, time.Now())
	if err != nil {
		return "", "", err
	}
	if err := pki.WriteFileAtomic(keyFile, keyPEM, 0o600); err != nil {
		return "", "", fmt.Errorf("--cert-dir: %w", err)
	}
	if err := pki.WriteFileAtomic(certFile, certPEM, 0o644); err != nil {
		return "", "", fmt.Errorf("--cert-dir: %w", err)
	}
	return certFile, keyFile, nil
}

// selfSignedServing makes a self-signed serving certificate for hosts
// (DNS names and IPs), valid for a year.
func selfSignedServing(hosts []string, now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: fmt.Sprintf("%s@%d", hosts[0], now.Unix())},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}
