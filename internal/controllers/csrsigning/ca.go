package csrsigning

import (
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"math"
	"math/big"
	"os"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"

	"github.com/kapi-dev/kapi/internal/pki"
)

// Signing policy of upstream's signer.
const (
	// backdate tolerates clock skew between the signer and the user.
	backdate = 5 * time.Minute
	// short certificates keep their whole requested lifetime.
	short = 8 * time.Hour
	// minDuration is the shortest certificate signed, whatever
	// spec.expirationSeconds asks.
	minDuration = 10 * time.Minute
	// DefaultDuration is --cluster-signing-duration's default.
	DefaultDuration = 365 * 24 * time.Hour
)

// CA is the signing certificate and key.
type CA struct {
	Cert *x509.Certificate
	Key  crypto.Signer
	// Duration is the longest certificate issued (--cluster-signing-duration).
	Duration time.Duration
}

// LoadCA reads the signing pair from certFile and keyFile.
func LoadCA(certFile, keyFile string, duration time.Duration) (*CA, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return nil, err
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, err
	}
	certs, err := pki.ParseCertsPEM(certPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", certFile, err)
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("%s: no certificate", certFile)
	}
	key, err := pki.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", keyFile, err)
	}
	if duration <= 0 {
		duration = DefaultDuration
	}
	return &CA{Cert: certs[0], Key: key, Duration: duration}, nil
}

// Duration is how long a certificate lives: the signer's limit, or the
// request's spec.expirationSeconds when shorter, but never under ten
// minutes.
func Duration(limit time.Duration, expirationSeconds *int32) time.Duration {
	if expirationSeconds == nil {
		return limit
	}
	requested := time.Duration(*expirationSeconds) * time.Second
	switch {
	case requested > limit:
		return limit
	case requested < minDuration:
		return minDuration
	}
	return requested
}

// Sign issues a certificate for req as upstream's permissive policy does:
// the request's subject and SANs, the given usages, no extensions, not a
// CA; valid from now-backdate for ttl (less the backdate when the
// certificate is long-lived), never past the CA's own expiry.
func (ca *CA) Sign(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage, ttl time.Duration, now time.Time) ([]byte, error) {
	if err := req.CheckSignature(); err != nil {
		return nil, fmt.Errorf("unable to verify certificate request signature: %w", err)
	}
	keyUsage, extUsages, err := keyUsages(usages)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).SetInt64(math.MaxInt64-1))
	if err != nil {
		return nil, fmt.Errorf("unable to generate a serial number for %s: %w", req.Subject.CommonName, err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               req.Subject,
		DNSNames:              req.DNSNames,
		IPAddresses:           req.IPAddresses,
		EmailAddresses:        req.EmailAddresses,
		URIs:                  req.URIs,
		PublicKey:             req.PublicKey,
		PublicKeyAlgorithm:    req.PublicKeyAlgorithm,
		KeyUsage:              keyUsage,
		ExtKeyUsage:           extUsages,
		BasicConstraintsValid: true,
		IsCA:                  false,
		NotBefore:             now.Add(-backdate),
	}
	if ttl < short {
		tmpl.NotAfter = now.Add(ttl)
	} else {
		tmpl.NotAfter = now.Add(ttl - backdate)
	}
	if !tmpl.NotAfter.Before(ca.Cert.NotAfter) {
		tmpl.NotAfter = ca.Cert.NotAfter
	}
	if !now.Before(ca.Cert.NotAfter) {
		return nil, fmt.Errorf("refusing to sign a certificate that expired in the past: NotAfter=%v", ca.Cert.NotAfter)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, req.PublicKey, ca.Key)
	if err != nil {
		return nil, fmt.Errorf("failed to sign certificate: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

var keyUsageOf = map[certificatesv1.KeyUsage]x509.KeyUsage{
	certificatesv1.UsageSigning:           x509.KeyUsageDigitalSignature,
	certificatesv1.UsageDigitalSignature:  x509.KeyUsageDigitalSignature,
	certificatesv1.UsageContentCommitment: x509.KeyUsageContentCommitment,
	certificatesv1.UsageKeyEncipherment:   x509.KeyUsageKeyEncipherment,
	certificatesv1.UsageKeyAgreement:      x509.KeyUsageKeyAgreement,
	certificatesv1.UsageDataEncipherment:  x509.KeyUsageDataEncipherment,
	certificatesv1.UsageCertSign:          x509.KeyUsageCertSign,
	certificatesv1.UsageCRLSign:           x509.KeyUsageCRLSign,
	certificatesv1.UsageEncipherOnly:      x509.KeyUsageEncipherOnly,
	certificatesv1.UsageDecipherOnly:      x509.KeyUsageDecipherOnly,
}

var extKeyUsageOf = map[certificatesv1.KeyUsage]x509.ExtKeyUsage{
	certificatesv1.UsageAny:             x509.ExtKeyUsageAny,
	certificatesv1.UsageServerAuth:      x509.ExtKeyUsageServerAuth,
	certificatesv1.UsageClientAuth:      x509.ExtKeyUsageClientAuth,
	certificatesv1.UsageCodeSigning:     x509.ExtKeyUsageCodeSigning,
	certificatesv1.UsageEmailProtection: x509.ExtKeyUsageEmailProtection,
	certificatesv1.UsageSMIME:           x509.ExtKeyUsageEmailProtection,
	certificatesv1.UsageIPsecEndSystem:  x509.ExtKeyUsageIPSECEndSystem,
	certificatesv1.UsageIPsecTunnel:     x509.ExtKeyUsageIPSECTunnel,
	certificatesv1.UsageIPsecUser:       x509.ExtKeyUsageIPSECUser,
	certificatesv1.UsageTimestamping:    x509.ExtKeyUsageTimeStamping,
	certificatesv1.UsageOCSPSigning:     x509.ExtKeyUsageOCSPSigning,
	certificatesv1.UsageMicrosoftSGC:    x509.ExtKeyUsageMicrosoftServerGatedCrypto,
	certificatesv1.UsageNetscapeSGC:     x509.ExtKeyUsageNetscapeServerGatedCrypto,
}

// keyUsages maps API usages to x509's, extended usages sorted and once.
func keyUsages(usages []certificatesv1.KeyUsage) (x509.KeyUsage, []x509.ExtKeyUsage, error) {
	var ku x509.KeyUsage
	var unrecognized []certificatesv1.KeyUsage
	seen := map[x509.ExtKeyUsage]bool{}
	for _, u := range usages {
		if v, ok := keyUsageOf[u]; ok {
			ku |= v
		} else if v, ok := extKeyUsageOf[u]; ok {
			seen[v] = true
		} else {
			unrecognized = append(unrecognized, u)
		}
	}
	if len(unrecognized) > 0 {
		return 0, nil, fmt.Errorf("unrecognized usage values: %q", unrecognized)
	}
	var ext []x509.ExtKeyUsage
	for v := x509.ExtKeyUsageAny; v <= x509.ExtKeyUsageMicrosoftKernelCodeSigning; v++ {
		if seen[v] {
			ext = append(ext, v)
		}
	}
	return ku, ext, nil
}
