package kapitest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/internal/controlplane"
)

// startTimeout bounds the wait for a server to become ready; a server that
// is not ready by then (a storage that never answers) fails the test.
const startTimeout = time.Minute

// Server is a running kapi. Its methods may be called from any goroutine.
type Server struct {
	tb      testing.TB
	dir     string
	certDir string
	admin   *rest.Config

	cancel   context.CancelFunc
	done     chan error
	stopOnce sync.Once

	mu    sync.Mutex
	users map[string]*rest.Config
}

// Start runs a complete kapi in-process on a free loopback port and
// returns the config of its administrator (user kapi-admin in
// system:masters). The server stops when the test ends; t.TempDir() holds
// everything it writes.
func Start(t testing.TB, opts ...Option) *rest.Config {
	t.Helper()
	return StartServer(t, opts...).Config()
}

// StartServer is Start returning the server itself: for per-user configs,
// the data directory, or stopping it before the test ends.
func StartServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	o := buildOptions(opts)
	dir := t.TempDir()
	s := &Server{
		tb:      t,
		dir:     dir,
		certDir: filepath.Join(dir, "pki"),
		done:    make(chan error, 1),
		users:   map[string]*rest.Config{},
	}
	if err := writeSAKey(dir); err != nil {
		t.Fatalf("kapitest: %v", err)
	}
	// Until Start returns: its garbage is collected after that.
	defer holdCollections()()
	ready := make(chan *rest.Config, 1)
	cfg := serverConfig(o, dir, s.certDir)
	cfg.Ready = func(c *rest.Config) { ready <- c }

	var ctx context.Context
	ctx, s.cancel = context.WithCancel(context.Background())
	go func() { s.done <- controlplane.Run(ctx, cfg) }()
	t.Cleanup(s.Stop)

	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case s.admin = <-ready:
	case err := <-s.done:
		s.done <- nil // reported here; Stop must not block on it.
		t.Fatalf("kapitest: starting kapi: %v", err)
	case <-timer.C:
		t.Fatalf("kapitest: kapi was not ready after %v", startTimeout)
	}

	for _, u := range o.users {
		if _, err := s.addUser(u.name, u.groups); err != nil {
			t.Fatalf("kapitest: %v", err)
		}
	}
	if err := installCRDs(s.admin, o.crdPaths, o.crds); err != nil {
		t.Fatalf("kapitest: %v", err)
	}
	return s
}

// serverConfig is the control plane's config for options o, everything
// under dir, with kapi serve's defaults where tests have no reason to
// differ.
func serverConfig(o options, dir, certDir string) *controlplane.Config {
	c := &controlplane.Config{
		Logger:                      o.logger,
		DataDir:                     dir,
		CertDir:                     certDir,
		BindAddress:                 net.IPv4(127, 0, 0, 1),
		SecurePort:                  0,
		StorageBackend:              "memory",
		EtcdPrefix:                  "/registry",
		EtcdHealthcheckTimeout:      2 * time.Second,
		EtcdReadycheckTimeout:       2 * time.Second,
		WatchCacheSize:              1000,
		MaxRequestsInFlight:         400,
		MaxMutatingRequestsInFlight: 200,
		RequestTimeout:              time.Minute,
		MinRequestTimeout:           30 * time.Minute,
		MaxRequestBytes:             3 << 20,
	}
	// t.TempDir() goes with the test: the certificates and the kubeconfig
	// written there need not wait for the disk.
	c.DataDirIsTemporary = true
	if o.etcd {
		c.StorageBackend = "etcd3"
		c.EtcdCompactionInterval = 5 * time.Minute
		// The data lives in t.TempDir(): as envtest runs etcd with
		// --unsafe-no-fsync, a test server's etcd does not wait for the
		// disk on every write.
		c.EmbeddedEtcdUnsafeNoFsync = true
	}
	c.Security.AuthorizationModes = o.authorizationModes
	c.Security.EnableAdmissionPlugins = o.enableAdmission
	c.Security.DisableAdmissionPlugins = o.disableAdmission
	c.Controllers = o.controllers
	c.SimulatedNodes = o.simulatedNodes
	return c
}

// Config returns a copy of the administrator's config.
func (s *Server) Config() *rest.Config { return rest.CopyConfig(s.admin) }

// UserConfig returns a copy of the config of a user added by WithUser or
// AddUser; an unknown name fails the test.
func (s *Server) UserConfig(name string) *rest.Config {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.users[name]
	if !ok {
		s.tb.Fatalf("kapitest: no user %q: add it with WithUser or AddUser", name)
	}
	return rest.CopyConfig(c)
}

// AddUser issues a client certificate for name in groups and returns its
// config, as WithUser does at start.
func (s *Server) AddUser(name string, groups ...string) *rest.Config {
	s.tb.Helper()
	c, err := s.addUser(name, groups)
	if err != nil {
		s.tb.Fatalf("kapitest: %v", err)
	}
	return rest.CopyConfig(c)
}

// Dir is the server's data directory, inside t.TempDir(); it holds
// admin.kubeconfig, for tools that want a file.
func (s *Server) Dir() string { return s.dir }

// Stop shuts the server down and waits until every goroutine it started
// has returned. It runs at the end of the test; calling it earlier is
// allowed, and so is calling it twice.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		s.cancel()
		if err := <-s.done; err != nil && !errors.Is(err, context.Canceled) {
			s.tb.Errorf("kapitest: kapi stopped with an error: %v", fmt.Sprint(err))
		}
	})
}
