package e2e

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"net"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/util/cert"
)

// webhookCert is a self-signed serving certificate for 127.0.0.1 and the
// caBundle that trusts it, as base64 for a manifest.
func webhookCert(t *testing.T) (tls.Certificate, []byte, []byte, string) {
	t.Helper()
	certPEM, keyPEM, err := cert.GenerateSelfSignedCertKey("127.0.0.1", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return pair, certPEM, keyPEM, base64.StdEncoding.EncodeToString(certPEM)
}

// writeCertDir writes tls.crt and tls.key where controller-runtime's
// webhook server looks for them.
func writeCertDir(t *testing.T, certPEM, keyPEM []byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, b := range map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// closedPort is an address on 127.0.0.1 nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
