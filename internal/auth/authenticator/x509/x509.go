// Package x509 authenticates requests by their TLS client certificate: a
// certificate that chains to a trusted client CA names the user in its
// common name and the groups in its organizations.
//
// The TLS server must request client certificates without verifying them
// (tls.RequestClientCert or VerifyClientCertIfGiven), so that a request
// without one can still authenticate another way and a bad one gets a clear
// 401 rather than a failed handshake.
package x509

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// Authenticator verifies client certificates against a CA pool.
type Authenticator struct {
	roots func() *x509.CertPool
	// now is the time certificates are verified at; tests set it.
	now      func() time.Time
	verified verifiedCache
}

var _ authenticator.Request = (*Authenticator)(nil)

// New returns an authenticator trusting roots.
func New(roots *x509.CertPool) *Authenticator {
	return NewDynamic(func() *x509.CertPool { return roots })
}

// NewDynamic returns an authenticator that asks roots for the pool on every
// request, so a reloaded --client-ca-file takes effect without a restart.
func NewDynamic(roots func() *x509.CertPool) *Authenticator {
	return &Authenticator{roots: roots, now: time.Now}
}

// AuthenticateRequest implements authenticator.Request. No client
// certificate, or one without a common name, is no opinion; a certificate
// that does not verify is an error.
func (a *Authenticator) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	if req.TLS == nil || len(req.TLS.PeerCertificates) == 0 {
		return nil, false, nil
	}
	leaf := req.TLS.PeerCertificates[0]
	roots := a.roots()
	if roots == nil {
		return nil, false, errors.New("x509: no client CA is configured")
	}
	if err := a.verify(req.TLS.PeerCertificates, roots); err != nil {
		return nil, false, err
	}
	if leaf.Subject.CommonName == "" {
		return nil, false, nil
	}
	groups := slices.Clone(leaf.Subject.Organization)
	if !slices.Contains(groups, user.AllAuthenticated) {
		groups = append(groups, user.AllAuthenticated)
	}
	return &authenticator.Response{User: &user.DefaultInfo{
		Name:   leaf.Subject.CommonName,
		Groups: groups,
	}}, true, nil
}

// describe names a certificate in errors the way an operator can find it.
func describe(c *x509.Certificate) string {
	return fmt.Sprintf("SN=%s, SKID=%X, AKID=%X, subject=%q issued by %q",
		c.SerialNumber, c.SubjectKeyId, c.AuthorityKeyId, c.Subject.String(), c.Issuer.String())
}

// verify checks the presented chain against roots for client auth, or
// finds it in the cache of chains that passed.
func (a *Authenticator) verify(certs []*x509.Certificate, roots *x509.CertPool) error {
	now := a.now()
	if a.verified.verified(certs, roots, now) {
		return nil
	}
	leaf := certs[0]
	intermediates := x509.NewCertPool()
	for _, c := range certs[1:] {
		intermediates.AddCert(c)
	}
	chains, err := leaf.Verify(x509.VerifyOptions{
		Roots:         roots,
		Intermediates: intermediates,
		CurrentTime:   now,
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	if err != nil {
		return fmt.Errorf("verifying certificate %s failed: %w", describe(leaf), err)
	}
	a.verified.remember(certs, roots, chains[0])
	return nil
}
