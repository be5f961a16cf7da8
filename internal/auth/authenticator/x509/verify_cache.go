package x509

import (
	"crypto/sha256"
	"crypto/x509"
	"sync"
	"time"
)

// verifiedCacheSize bounds the remembered certificates; when full the
// cache starts over, which costs one verification per client.
const verifiedCacheSize = 1024

// verifiedCache remembers the client certificates that verified, so that
// the requests of a connection (and of a client's reconnections) are not
// each charged a signature check: a client sends the same certificate
// with every request, and its check was a tenth of the CPU of kapi's
// start. An entry holds only while the roots are the same pool (a
// reloaded client CA is a new pool) and inside the validity window of the
// verified chain; outside it the certificate is verified again. Failures
// are never remembered.
type verifiedCache struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]verifiedEntry
}

type verifiedEntry struct {
	roots               *x509.CertPool
	notBefore, notAfter time.Time
}

// chainKey identifies the certificates a client presented, in order.
func chainKey(certs []*x509.Certificate) [sha256.Size]byte {
	h := sha256.New()
	for _, c := range certs {
		h.Write(c.Raw)
		h.Write([]byte{0}) // certificates are DER: no ambiguity, but be explicit
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// verified reports whether certs verified against roots and still would at now.
func (c *verifiedCache) verified(certs []*x509.Certificate, roots *x509.CertPool, now time.Time) bool {
	k := chainKey(certs)
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	return ok && e.roots == roots && !now.Before(e.notBefore) && now.Before(e.notAfter)
}

// remember records that certs verified against roots through chain.
func (c *verifiedCache) remember(certs []*x509.Certificate, roots *x509.CertPool, chain []*x509.Certificate) {
	if len(chain) == 0 {
		return
	}
	e := verifiedEntry{roots: roots, notBefore: chain[0].NotBefore, notAfter: chain[0].NotAfter}
	for _, c := range chain[1:] {
		if c.NotBefore.After(e.notBefore) {
			e.notBefore = c.NotBefore
		}
		if c.NotAfter.Before(e.notAfter) {
			e.notAfter = c.NotAfter
		}
	}
	k := chainKey(certs)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= verifiedCacheSize {
		c.entries = map[[sha256.Size]byte]verifiedEntry{}
	}
	c.entries[k] = e
}
