package etcd3

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"

	"github.com/kapi-dev/kapi/internal/pki"
)

// Client defaults, kube-apiserver's: keepalive pings find a dead member
// quickly enough for the client to move to another, and dialling over TLS
// needs more than a few seconds on a loaded machine.
const (
	DefaultDialTimeout = 20 * time.Second
	keepaliveTime      = 30 * time.Second
	keepaliveTimeout   = 10 * time.Second
)

// ClientConfig says how to reach an external etcd cluster
// (--etcd-servers and its TLS flags).
type ClientConfig struct {
	// Endpoints are the members' client URLs, http:// or https://.
	Endpoints []string
	// CAFile verifies the members' serving certificates; "" uses the
	// system roots for https endpoints.
	CAFile string
	// CertFile and KeyFile are the client certificate presented to
	// members that require one; both or neither.
	CertFile, KeyFile string
	// DialTimeout bounds establishing a connection; 0 means
	// DefaultDialTimeout.
	DialTimeout time.Duration
	// Logger is reserved for the client's own logs. They are discarded for
	// now: the client logs mostly retries, whose final errors reach the
	// caller anyway, and the zap-to-slog adapter lives unexported in the
	// embedded package.
	Logger *slog.Logger
	// DialOptions are added to the client's dial options (kapi's tracing
	// interceptor).
	DialOptions []grpc.DialOption
}

// NewClient returns a client on cfg.Endpoints. It does not wait for etcd:
// the first request does, up to its context's deadline. The caller closes
// the client, after any backend using it.
func NewClient(cfg ClientConfig) (*clientv3.Client, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, errors.New("etcd client: no endpoints")
	}
	tlsConfig, err := clientTLS(cfg)
	if err != nil {
		return nil, err
	}
	dialTimeout := cfg.DialTimeout
	if dialTimeout == 0 {
		dialTimeout = DefaultDialTimeout
	}
	client, err := clientv3.New(clientv3.Config{
		Endpoints:            cfg.Endpoints,
		DialTimeout:          dialTimeout,
		DialKeepAliveTime:    keepaliveTime,
		DialKeepAliveTimeout: keepaliveTimeout,
		TLS:                  tlsConfig,
		DialOptions:          cfg.DialOptions,
		Logger:               zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("etcd client: %w", err)
	}
	return client, nil
}

// clientTLS builds the TLS configuration from cfg's files, or returns nil
// when none is given (plain connections, or system roots for https).
func clientTLS(cfg ClientConfig) (*tls.Config, error) {
	if cfg.CAFile == "" && cfg.CertFile == "" && cfg.KeyFile == "" {
		return nil, nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.CAFile != "" {
		data, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("reading etcd CA file %q: %w", cfg.CAFile, err)
		}
		if c.RootCAs, err = pki.CertPoolFromPEM(data); err != nil {
			return nil, fmt.Errorf("etcd CA file %q: %w", cfg.CAFile, err)
		}
	}
	if (cfg.CertFile == "") != (cfg.KeyFile == "") {
		return nil, fmt.Errorf("etcd client certificate %q and key %q: both or neither must be given", cfg.CertFile, cfg.KeyFile)
	}
	if cfg.CertFile != "" {
		certPEM, err := os.ReadFile(cfg.CertFile)
		if err != nil {
			return nil, fmt.Errorf("reading etcd client certificate file %q: %w", cfg.CertFile, err)
		}
		keyPEM, err := os.ReadFile(cfg.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("reading etcd client key file %q: %w", cfg.KeyFile, err)
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("etcd client certificate %q and key %q: %w", cfg.CertFile, cfg.KeyFile, err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}
