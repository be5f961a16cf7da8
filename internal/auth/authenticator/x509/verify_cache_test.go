package x509

import (
	"crypto/x509"
	"net/http/httptest"
	"testing"
	"time"
)

// TestVerifiedCache: a remembered certificate is accepted again only with
// the same roots and inside its validity window; a failure is not
// remembered.
func TestVerifiedCache(t *testing.T) {
	c := newCerts(t)
	roots := c.roots
	now := time.Now()
	a := NewDynamic(func() *x509.CertPool { return roots })
	a.now = func() time.Time { return now }
	auth := func() bool {
		t.Helper()
		req := httptest.NewRequest("GET", "https://kapi/api", nil)
		req.TLS = peer(c.alice)
		_, ok, _ := a.AuthenticateRequest(req)
		return ok
	}

	if !auth() || !auth() {
		t.Fatal("alice not authenticated, first or second time")
	}
	if !a.verified.verified(peer(c.alice).PeerCertificates, roots, now) {
		t.Error("a verified certificate was not remembered")
	}

	roots = x509.NewCertPool() // a reloaded client CA without alice's
	if auth() {
		t.Error("a remembered certificate accepted against other roots")
	}
	roots = c.roots
	if !auth() {
		t.Error("alice not authenticated after the roots came back")
	}

	now = c.alice.NotAfter.Add(time.Second)
	if auth() {
		t.Error("a remembered certificate accepted after it expired")
	}

	now = time.Now()
	a.verified = verifiedCache{}
	roots = x509.NewCertPool()
	auth()
	if a.verified.verified(peer(c.alice).PeerCertificates, roots, now) {
		t.Error("a failed verification was remembered")
	}
}
