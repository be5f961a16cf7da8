package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/internal/leakcheck"
)

// TestMain fails the package when goroutines started by this package's code
// outlive the tests.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Main(m, "kapi/internal/server"))
}

// leakedGoroutines returns the stacks that still run code of kapi's server
// packages, giving exiting goroutines a moment to finish.

// selfSigned returns a serving certificate for 127.0.0.1 and a pool that
// trusts it.
func selfSigned(t *testing.T) (*tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kapi-test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// logWatcher is a slog.Handler that lets a test wait for a log message: the
// server announces its lifecycle steps in its log.
type logWatcher struct {
	mu      sync.Mutex
	seen    map[string]bool
	waiters map[string][]chan struct{}
}

func newLogWatcher() *logWatcher {
	return &logWatcher{seen: map[string]bool{}, waiters: map[string][]chan struct{}{}}
}

func (l *logWatcher) Enabled(context.Context, slog.Level) bool { return true }
func (l *logWatcher) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logWatcher) WithGroup(string) slog.Handler            { return l }

func (l *logWatcher) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen[r.Message] = true
	for _, ch := range l.waiters[r.Message] {
		close(ch)
	}
	delete(l.waiters, r.Message)
	return nil
}

// seenCh is closed once msg was logged.
func (l *logWatcher) seenCh(msg string) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	ch := make(chan struct{})
	if l.seen[msg] {
		close(ch)
		return ch
	}
	l.waiters[msg] = append(l.waiters[msg], ch)
	return ch
}

// testServer is a running server chain and a client for it.
type testServer struct {
	t        *testing.T
	prepared *PreparedServer
	url      string
	client   *http.Client
	cancel   context.CancelFunc
	runErr   chan error

	stopOnce sync.Once
	err      error
}

// stop cancels Run's context and returns Run's result; it may be called
// more than once.
func (ts *testServer) stop() error {
	ts.stopOnce.Do(func() {
		ts.cancel()
		ts.err = <-ts.runErr
	})
	return ts.err
}

// startServer listens on 127.0.0.1:0 with a fresh certificate, lets setup
// build the chain from the Config, and runs the outermost server it
// returns. Cleanup stops it.
func startServer(t *testing.T, c *Config, setup func(c *Config) *GenericServer) *testServer {
	t.Helper()
	cert, pool := selfSigned(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.SecureServing = &SecureServingInfo{Listener: ln, Cert: cert}
	prepared := setup(c).PrepareRun()
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	ctx, cancel := context.WithCancel(context.Background())
	ts := &testServer{
		t:        t,
		prepared: prepared,
		url:      "https://" + ln.Addr().String(),
		client:   &http.Client{Transport: transport},
		cancel:   cancel,
		runErr:   make(chan error, 1),
	}
	go func() { ts.runErr <- prepared.Run(ctx) }()
	t.Cleanup(func() {
		// Closing first spares the server its wait for the client to
		// answer the HTTP/2 GOAWAY.
		transport.CloseIdleConnections()
		if err := ts.stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return ts
}

// get sends a GET as the user named by token ("" for none) and returns the
// status and body.
func (ts *testServer) get(path, token string) (int, string, http.Header) {
	ts.t.Helper()
	req, err := http.NewRequest(http.MethodGet, ts.url+path, nil)
	if err != nil {
		ts.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := ts.client.Do(req)
	if err != nil {
		ts.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		ts.t.Fatalf("GET %s: reading body: %v", path, err)
	}
	return resp.StatusCode, string(body), resp.Header
}
