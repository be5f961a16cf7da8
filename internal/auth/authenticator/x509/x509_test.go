package x509

import (
	"crypto/tls"
	"crypto/x509"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/pki"
)

// certs issues the certificates the table uses, all from real CAs.
type certs struct {
	roots                       *x509.CertPool
	admin, alice, noCN, serving *x509.Certificate
	otherCA, expired            *x509.Certificate
}

func newCerts(t *testing.T) certs {
	t.Helper()
	dir := t.TempDir()
	m, err := pki.Ensure(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := certs{roots: m.CA.CertPool(), admin: parse(t, m.AdminCertPEM), serving: parse(t, m.ServingCertPEM)}
	c.alice = client(t, m.CA, dir, "alice", "alice", []string{"dev", user.AllAuthenticated})
	c.noCN = client(t, m.CA, dir, "nocn", "", []string{"dev"})

	other, err := pki.Ensure(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c.otherCA = parse(t, other.AdminCertPEM)

	// Issued two years ago by this directory's CA key: a CA made with the
	// same clock is still valid, its one-year leaf is not.
	pastDir := t.TempDir()
	past, err := pki.EnsureCA(pastDir, pki.WithClock(func() time.Time { return time.Now().AddDate(-2, 0, 0) }))
	if err != nil {
		t.Fatal(err)
	}
	c.expired = client(t, past, pastDir, "old", "old", nil)
	c.roots.AddCert(past.Cert)
	return c
}

func client(t *testing.T, ca *pki.CA, dir, base, name string, groups []string) *x509.Certificate {
	t.Helper()
	certPEM, _, err := ca.EnsureClientCert(dir, base, name, groups)
	if err != nil {
		t.Fatal(err)
	}
	return parse(t, certPEM)
}

func parse(t *testing.T, certPEM []byte) *x509.Certificate {
	t.Helper()
	cs, err := pki.ParseCertsPEM(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	return cs[0]
}

func TestAuthenticateRequest(t *testing.T) {
	c := newCerts(t)
	tests := []struct {
		name       string
		tls        *tls.ConnectionState
		noRoots    bool
		wantOK     bool
		wantErr    bool
		wantUser   string
		wantGroups []string
	}{
		{name: "plain HTTP", tls: nil},
		{name: "TLS without a client certificate", tls: &tls.ConnectionState{}},
		{name: "admin", tls: peer(c.admin), wantOK: true, wantUser: pki.AdminUser,
			wantGroups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}},
		{name: "system:authenticated not repeated", tls: peer(c.alice), wantOK: true, wantUser: "alice",
			wantGroups: []string{"dev", user.AllAuthenticated}},
		{name: "no common name", tls: peer(c.noCN)},
		{name: "unknown CA", tls: peer(c.otherCA), wantErr: true},
		{name: "server-only certificate", tls: peer(c.serving), wantErr: true},
		{name: "expired", tls: peer(c.expired), wantErr: true},
		{name: "no client CA configured", tls: peer(c.admin), noRoots: true, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			roots := c.roots
			if tt.noRoots {
				roots = nil
			}
			a := NewDynamic(func() *x509.CertPool { return roots })
			req := httptest.NewRequest("GET", "https://kapi/api", nil)
			req.TLS = tt.tls
			resp, ok, err := a.AuthenticateRequest(req)
			if ok != tt.wantOK || (err != nil) != tt.wantErr {
				t.Fatalf("AuthenticateRequest() = ok %v, err %v; want ok %v, error %v", ok, err, tt.wantOK, tt.wantErr)
			}
			if !ok {
				if resp != nil {
					t.Errorf("response %+v without ok", resp)
				}
				return
			}
			if got := resp.User.GetName(); got != tt.wantUser {
				t.Errorf("user = %q, want %q", got, tt.wantUser)
			}
			if diff := cmp.Diff(tt.wantGroups, resp.User.GetGroups()); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewStaticPool(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	m, err := pki.Ensure(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("GET", "https://kapi/api", nil)
	req.TLS = peer(parse(t, m.AdminCertPEM))
	if _, ok, err := New(m.CA.CertPool()).AuthenticateRequest(req); !ok || err != nil {
		t.Errorf("AuthenticateRequest() = ok %v, err %v; want ok", ok, err)
	}
}

func peer(c *x509.Certificate) *tls.ConnectionState {
	return &tls.ConnectionState{PeerCertificates: []*x509.Certificate{c}}
}
