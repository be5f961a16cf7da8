package dynamiccertificates

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// certSpec describes a test certificate; id goes into the subject's
// organizational unit so tests can tell certificates apart without
// touching the names SNI selection reads.
type certSpec struct {
	id       string
	cn       string
	dnsNames []string
	ips      []net.IP
	rsa      bool
	client   bool
}

// testCA signs test certificates.
type testCA struct {
	cert *x509.Certificate
	key  crypto.Signer
	pem  []byte
}

func newTestCA(t testing.TB, cn string) *testCA {
	t.Helper()
	key := newKey(t, false)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageCertSign,
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

func newKey(t testing.TB, useRSA bool) crypto.Signer {
	t.Helper()
	var key crypto.Signer
	var err error
	if useRSA {
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	} else {
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	}
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// issue returns the PEM certificate and key of spec, signed by ca.
func (ca *testCA) issue(t testing.TB, spec certSpec) (certPEM, keyPEM []byte) {
	t.Helper()
	key := newKey(t, spec.rsa)
	usage := x509.ExtKeyUsageServerAuth
	if spec.client {
		usage = x509.ExtKeyUsageClientAuth
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: spec.cn, OrganizationalUnit: []string{spec.id}},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		DNSNames:     spec.dnsNames,
		IPAddresses:  spec.ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
}

// tlsCert returns spec as a parsed certificate.
func (ca *testCA) tlsCert(t testing.TB, spec certSpec) *tls.Certificate {
	t.Helper()
	c, err := tls.X509KeyPair(ca.issue(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	if c.Leaf, err = x509.ParseCertificate(c.Certificate[0]); err != nil {
		t.Fatal(err)
	}
	return &c
}

// certID is the id a test certificate was issued with.
func certID(c *tls.Certificate) string {
	if c == nil || c.Leaf == nil || len(c.Leaf.Subject.OrganizationalUnit) == 0 {
		return "<none>"
	}
	return c.Leaf.Subject.OrganizationalUnit[0]
}

// pairFiles is a certificate and key file in a test's temporary directory.
type pairFiles struct {
	cert, key string
}

func newPairFiles(t testing.TB, name string) pairFiles {
	dir := t.TempDir()
	return pairFiles{cert: filepath.Join(dir, name+".crt"), key: filepath.Join(dir, name+".key")}
}

func (p pairFiles) write(t testing.TB, certPEM, keyPEM []byte) {
	t.Helper()
	writeFile(t, p.cert, certPEM)
	writeFile(t, p.key, keyPEM)
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// handshake runs a real TLS handshake over an in-memory connection against
// a server taking its certificate from getCert, and returns the id of the
// certificate the client saw.
func handshake(t *testing.T, getCert func(*tls.ClientHelloInfo) (*tls.Certificate, error), roots *x509.CertPool, serverName string) string {
	t.Helper()
	sc, cc := net.Pipe()
	defer sc.Close()
	defer cc.Close()
	srv := tls.Server(sc, &tls.Config{GetCertificate: getCert})
	errs := make(chan error, 1)
	go func() { errs <- srv.HandshakeContext(context.Background()) }()
	cli := tls.Client(cc, &tls.Config{RootCAs: roots, ServerName: serverName})
	if err := cli.HandshakeContext(context.Background()); err != nil {
		t.Fatalf("client handshake: %v", err)
	}
	if err := <-errs; err != nil {
		t.Fatalf("server handshake: %v", err)
	}
	leaf := cli.ConnectionState().PeerCertificates[0]
	return certID(&tls.Certificate{Leaf: leaf})
}

// logRecorder keeps the messages logged at error level.
type logRecorder struct {
	mu     sync.Mutex
	errors []string
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecorder) WithGroup(string) slog.Handler            { return l }

func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	if r.Level < slog.LevelError {
		return nil
	}
	var b bytes.Buffer
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		b.WriteString(" " + a.String())
		return true
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errors = append(l.errors, b.String())
	return nil
}

func (l *logRecorder) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.errors)
}

// writeIssued issues spec from ca into p's files.
func (p pairFiles) writeIssued(t testing.TB, ca *testCA, spec certSpec) {
	t.Helper()
	certPEM, keyPEM := ca.issue(t, spec)
	p.write(t, certPEM, keyPEM)
}

// startRun runs run in a goroutine; the returned stop cancels it and waits
// for it to return.
func startRun(t *testing.T, run func(context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}
