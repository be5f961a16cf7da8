package dynamiccertificates

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kapi-dev/kapi/internal/pki"
)

// ClientCA is a CA bundle file, reloaded when it changes: the roots a
// client-certificate authenticator verifies against, and the issuers the
// TLS server names to clients.
type ClientCA struct {
	file     string
	interval time.Duration
	logger   *slog.Logger

	mu   sync.Mutex // serializes reloads
	seen digest     // of the content last read, good or bad

	bundle atomic.Pointer[caBundle]
}

// caBundle is one loaded version of the file; never modified once stored.
type caBundle struct {
	pem   []byte
	certs []*x509.Certificate
	pool  *x509.CertPool
}

// NewClientCA loads the bundle in file, failing if it holds no
// certificate. Run re-reads it every interval (DefaultInterval if not
// positive); a nil logger discards.
func NewClientCA(file string, interval time.Duration, logger *slog.Logger) (*ClientCA, error) {
	if file == "" {
		return nil, errors.New("missing filename for ca bundle")
	}
	c := &ClientCA{file: file, interval: interval, logger: orDiscard(logger)}
	if _, err := c.load(); err != nil {
		return nil, err
	}
	return c, nil
}

// load reads the file and, if it changed and parses, takes it; content that
// does not parse is an error once, until it changes again.
func (c *ClientCA) load() (bool, error) {
	files, d, err := readFiles(c.file)
	if err != nil {
		return false, err
	}
	if c.bundle.Load() != nil && d == c.seen {
		return false, nil
	}
	c.seen = d
	data := files[0]
	if len(data) == 0 {
		return false, fmt.Errorf("missing content for CA bundle %q", c.file)
	}
	certs, err := pki.ParseCertsPEM(data)
	if err != nil {
		return false, fmt.Errorf("unable to load client CA file %q: %w", c.file, err)
	}
	pool := x509.NewCertPool()
	for _, cert := range certs {
		pool.AddCert(cert)
	}
	c.bundle.Store(&caBundle{pem: data, certs: certs, pool: pool})
	return true, nil
}

// Run re-reads the file every interval until ctx ends.
func (c *ClientCA) Run(ctx context.Context) {
	c.logger.Debug("watching a CA bundle", "file", c.file, "interval", c.interval)
	every(ctx, c.interval, c.reload)
}

func (c *ClientCA) reload() {
	c.mu.Lock()
	defer c.mu.Unlock()
	changed, err := c.load()
	switch {
	case err != nil:
		c.logger.Error("Not reloading a CA bundle; the previous one stays in use", "file", c.file, "err", err)
	case changed:
		c.logger.Info("Loaded a new CA bundle", "file", c.file, "certificates", len(c.bundle.Load().certs))
	}
}

// Pool returns the current pool. Callers must not add to it: it is shared.
func (c *ClientCA) Pool() *x509.CertPool {
	return c.bundle.Load().pool
}

// PEM returns the current bundle as read from the file, as the
// extension-apiserver-authentication ConfigMap carries it.
func (c *ClientCA) PEM() []byte {
	return slices.Clone(c.bundle.Load().pem)
}

// UnionPool returns a function giving a pool of the certificates of every
// non-nil ca, rebuilt only after one of them reloads: fit to be called on
// every handshake (as TLS client CA hints) or request (as authenticator
// roots).
func UnionPool(cas ...*ClientCA) func() *x509.CertPool {
	cas = slices.DeleteFunc(slices.Clone(cas), func(c *ClientCA) bool { return c == nil })
	type union struct {
		from []*caBundle
		pool *x509.CertPool
	}
	var cached atomic.Pointer[union]
	return func() *x509.CertPool {
		if u := cached.Load(); u != nil && unchanged(u.from, cas) {
			return u.pool
		}
		from := make([]*caBundle, len(cas))
		pool := x509.NewCertPool()
		for i, ca := range cas {
			from[i] = ca.bundle.Load()
			for _, cert := range from[i].certs {
				pool.AddCert(cert)
			}
		}
		// Racing rebuilds may store out of order; a stale winner is
		// rebuilt on the next call.
		cached.Store(&union{from: from, pool: pool})
		return pool
	}
}

// unchanged says whether from is what cas hold now.
func unchanged(from []*caBundle, cas []*ClientCA) bool {
	for i, ca := range cas {
		if from[i] != ca.bundle.Load() {
			return false
		}
	}
	return true
}
