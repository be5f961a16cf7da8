package pki

import (
	"bytes"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// readAll returns the content of every file Ensure writes.
func readAll(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, f := range []string{CACertFile, CAKeyFile, ServingCertFile, ServingKeyFile, AdminCertFile, AdminKeyFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		out[f] = b
	}
	return out
}

func TestEnsureReusesOnRestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	first, err := Ensure(dir, []string{"10.0.0.1", "kapi.example"})
	if err != nil {
		t.Fatal(err)
	}
	before := readAll(t, dir)
	second, err := Ensure(dir, []string{"10.0.0.1", "kapi.example"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, readAll(t, dir)); diff != "" {
		t.Errorf("files changed on restart (-before +after):\n%s", diff)
	}
	if !bytes.Equal(first.ServingCertPEM, second.ServingCertPEM) || !bytes.Equal(first.AdminKeyPEM, second.AdminKeyPEM) ||
		!bytes.Equal(first.CA.CertPEM, second.CA.CertPEM) {
		t.Error("returned PEM differs between runs")
	}
	if !bytes.Equal(second.ServingCertPEM, before[ServingCertFile]) {
		t.Error("returned serving certificate is not the file's content")
	}
}

func TestFileModes(t *testing.T) {
	for name, opts := range map[string][]Option{"synced": nil, "without sync": {WithoutSync()}} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			m, err := Ensure(dir, nil, opts...)
			if err != nil {
				t.Fatal(err)
			}
			for f, want := range map[string]os.FileMode{
				CACertFile: 0o644, CAKeyFile: 0o600, ServingCertFile: 0o644,
				ServingKeyFile: 0o600, AdminCertFile: 0o644, AdminKeyFile: 0o600,
			} {
				st, err := os.Stat(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if got := st.Mode().Perm(); got != want {
					t.Errorf("%s: mode %v, want %v", f, got, want)
				}
			}
			// What was written is what a restart reads back.
			again, err := Ensure(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.AdminKeyPEM, m.AdminKeyPEM) || !bytes.Equal(again.CA.CertPEM, m.CA.CertPEM) {
				t.Error("a second Ensure did not reuse the files the first wrote")
			}
		})
	}
}

func TestChainVerifies(t *testing.T) {
	m, err := Ensure(t.TempDir(), []string{"192.168.1.5", "Node-1.example", "0.0.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	roots := m.CA.CertPool()
	serving := mustParse(t, m.ServingCertPEM)
	for _, host := range []string{"localhost", "127.0.0.1", "::1", "192.168.1.5", "node-1.example"} {
		_, err := serving.Verify(x509.VerifyOptions{DNSName: host, Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
		if err != nil {
			t.Errorf("serving certificate for %q: %v", host, err)
		}
	}
	if _, err := serving.Verify(x509.VerifyOptions{DNSName: "other.example", Roots: roots}); err == nil {
		t.Error("serving certificate verified for a name it was not issued for")
	}
	admin := mustParse(t, m.AdminCertPEM)
	if _, err := admin.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("admin certificate: %v", err)
	}
	if admin.Subject.CommonName != AdminUser || !cmp.Equal(admin.Subject.Organization, []string{"system:masters"}) {
		t.Errorf("admin subject = %v, want CN=%s O=system:masters", admin.Subject, AdminUser)
	}
	if got := m.CA.Cert.NotAfter.Sub(m.CA.Cert.NotBefore); got < CAValidity {
		t.Errorf("CA lifetime %v, want at least %v", got, CAValidity)
	}
}

func TestServingCertRegeneration(t *testing.T) {
	hosts := []string{"10.0.0.1", "a.example"}
	tests := []struct {
		name   string
		hosts  []string
		now    time.Time
		damage func(t *testing.T, dir string)
		reuse  bool
	}{
		{name: "same hosts", hosts: hosts, reuse: true},
		{name: "subset of hosts", hosts: []string{"a.example"}, reuse: true},
		{name: "new IP", hosts: append(hosts, "10.0.0.2"), reuse: false},
		{name: "new name", hosts: append(hosts, "b.example"), reuse: false},
		{name: "within a day of expiry", hosts: hosts, now: time.Now().Add(LeafValidity - time.Hour), reuse: false},
		{name: "corrupt certificate", hosts: hosts, damage: func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, ServingCertFile), []byte("garbage"))
		}},
		{name: "key of another certificate", hosts: hosts, damage: func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(dir, AdminKeyFile), filepath.Join(dir, ServingKeyFile))
		}},
		{name: "signed by another CA", hosts: hosts, damage: func(t *testing.T, dir string) {
			other := t.TempDir()
			if _, err := Ensure(other, hosts); err != nil {
				t.Fatal(err)
			}
			copyFile(t, filepath.Join(other, ServingCertFile), filepath.Join(dir, ServingCertFile))
			copyFile(t, filepath.Join(other, ServingKeyFile), filepath.Join(dir, ServingKeyFile))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := Ensure(dir, hosts); err != nil {
				t.Fatal(err)
			}
			if tt.damage != nil {
				tt.damage(t, dir)
			}
			before := readAll(t, dir)
			var opts []Option
			if !tt.now.IsZero() {
				opts = append(opts, WithClock(func() time.Time { return tt.now }))
			}
			m, err := Ensure(dir, tt.hosts, opts...)
			if err != nil {
				t.Fatal(err)
			}
			after := readAll(t, dir)
			if !bytes.Equal(before[CACertFile], after[CACertFile]) || !bytes.Equal(before[CAKeyFile], after[CAKeyFile]) {
				t.Error("the CA was replaced")
			}
			if reused := bytes.Equal(before[ServingCertFile], after[ServingCertFile]); reused != tt.reuse {
				t.Errorf("serving certificate reused = %v, want %v", reused, tt.reuse)
			}
			if !bytes.Equal(m.ServingCertPEM, after[ServingCertFile]) || !bytes.Equal(m.ServingKeyPEM, after[ServingKeyFile]) {
				t.Error("returned serving pair is not what is on disk")
			}
			serving := mustParse(t, after[ServingCertFile])
			for _, h := range tt.hosts {
				if err := serving.VerifyHostname(h); err != nil {
					t.Errorf("new serving certificate: %v", err)
				}
			}
		})
	}
}

func TestClientCertIdentity(t *testing.T) {
	tests := []struct {
		name   string
		user   string
		groups []string
		reuse  bool
	}{
		{name: "same identity", user: "alice", groups: []string{"a", "b"}, reuse: true},
		{name: "groups reordered", user: "alice", groups: []string{"b", "a"}, reuse: true},
		{name: "group removed", user: "alice", groups: []string{"a"}},
		{name: "group added", user: "alice", groups: []string{"a", "b", "c"}},
		{name: "other user", user: "bob", groups: []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ca, err := EnsureCA(dir)
			if err != nil {
				t.Fatal(err)
			}
			first, _, err := ca.EnsureClientCert(dir, "alice", "alice", []string{"a", "b"})
			if err != nil {
				t.Fatal(err)
			}
			second, _, err := ca.EnsureClientCert(dir, "alice", tt.user, tt.groups)
			if err != nil {
				t.Fatal(err)
			}
			if reused := bytes.Equal(first, second); reused != tt.reuse {
				t.Errorf("reused = %v, want %v", reused, tt.reuse)
			}
			c := mustParse(t, second)
			if c.Subject.CommonName != tt.user || !sameSet(c.Subject.Organization, tt.groups) {
				t.Errorf("subject = %v, want CN=%s O=%v", c.Subject, tt.user, tt.groups)
			}
		})
	}
}

func TestEnsureCA(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string)
		now     time.Time
		wantErr bool
		replace bool
	}{
		{name: "valid CA is kept"},
		{name: "expiring CA is replaced", now: time.Now().Add(CAValidity - time.Hour), replace: true},
		{name: "corrupt certificate is an error", wantErr: true, setup: func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, CACertFile), []byte("garbage"))
		}},
		{name: "missing key is an error", wantErr: true, setup: func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, CAKeyFile)); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "non-CA certificate is an error", wantErr: true, setup: func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(dir, ServingCertFile), filepath.Join(dir, CACertFile))
			copyFile(t, filepath.Join(dir, ServingKeyFile), filepath.Join(dir, CAKeyFile))
		}},
		{name: "key without certificate is regenerated", replace: true, setup: func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, CACertFile)); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			orig, err := Ensure(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			before, _ := os.ReadFile(filepath.Join(dir, CACertFile))
			var opts []Option
			if !tt.now.IsZero() {
				opts = append(opts, WithClock(func() time.Time { return tt.now }))
			}
			ca, err := EnsureCA(dir, opts...)
			if gotErr := err != nil; gotErr != tt.wantErr {
				t.Fatalf("EnsureCA() error = %v, want error %v", err, tt.wantErr)
			}
			after, _ := os.ReadFile(filepath.Join(dir, CACertFile))
			if tt.wantErr {
				if !bytes.Equal(before, after) {
					t.Error("a CA that could not be loaded was overwritten")
				}
				return
			}
			if replaced := !bytes.Equal(ca.CertPEM, orig.CA.CertPEM); replaced != tt.replace {
				t.Errorf("CA replaced = %v, want %v", replaced, tt.replace)
			}
			if !bytes.Equal(ca.CertPEM, after) {
				t.Error("returned CA is not what is on disk")
			}
		})
	}
}

func TestSubjectAltNames(t *testing.T) {
	tests := []struct {
		hosts   []string
		wantDNS []string
		wantIPs []string
	}{
		{hosts: nil, wantDNS: []string{"localhost"}, wantIPs: []string{"127.0.0.1", "::1"}},
		{
			hosts:   []string{"0.0.0.0", "::", "", " 10.1.2.3 ", "[fd00::1]", "Example.COM", "example.com", "127.0.0.1", "localhost"},
			wantDNS: []string{"localhost", "example.com"},
			wantIPs: []string{"127.0.0.1", "::1", "10.1.2.3", "fd00::1"},
		},
	}
	for _, tt := range tests {
		dns, ips := subjectAltNames(tt.hosts)
		var gotIPs []string
		for _, ip := range ips {
			gotIPs = append(gotIPs, ip.String())
		}
		if diff := cmp.Diff(tt.wantDNS, dns); diff != "" {
			t.Errorf("subjectAltNames(%q) DNS (-want +got):\n%s", tt.hosts, diff)
		}
		if diff := cmp.Diff(tt.wantIPs, gotIPs); diff != "" {
			t.Errorf("subjectAltNames(%q) IPs (-want +got):\n%s", tt.hosts, diff)
		}
	}
}

func mustParse(t *testing.T, certPEM []byte) *x509.Certificate {
	t.Helper()
	certs, err := ParseCertsPEM(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	return certs[0]
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	write(t, to, b)
}
