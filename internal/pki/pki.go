// Package pki creates and reuses the certificates kapi serves with when the
// user gives none: a self-signed CA, a serving certificate and client
// certificates signed by it. It also loads the certificates a user gives on
// the command line.
//
// Generated material lives in one directory (the data dir's "pki" folder) so
// that a restart reuses it: kubeconfigs written by an earlier run keep
// working as long as the CA is unchanged.
package pki

import (
	"errors"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/internal/auth/user"
)

// File names inside the pki directory.
const (
	CACertFile      = "ca.crt"
	CAKeyFile       = "ca.key"
	ServingCertFile = "serving.crt"
	ServingKeyFile  = "serving.key"
	AdminCertFile   = "admin.crt"
	AdminKeyFile    = "admin.key"
)

// Identity of the generated administrator credential.
const (
	AdminFileBase = "admin"
	AdminUser     = "kapi-admin"
)

// AdminGroups are the groups of the generated administrator credential:
// system:masters bypasses authorization, so the credential works before any
// RBAC object exists.
func AdminGroups() []string { return []string{user.SystemPrivilegedGroup} }

// Lifetimes of generated certificates.
const (
	CAValidity   = 10 * 365 * 24 * time.Hour
	LeafValidity = 365 * 24 * time.Hour
	// RenewBefore is how long before expiry a certificate stops being reused,
	// so a server restarted close to expiry does not start with a credential
	// that dies shortly after.
	RenewBefore = 24 * time.Hour
	// backdate tolerates small clock skew between kapi and its clients.
	backdate = 5 * time.Minute
)

// CAName is the common name of the generated CA.
const CAName = "kapi-ca"

// Option changes how certificates are generated or checked.
type Option func(*options)

type options struct {
	now func() time.Time
	// noSync leaves written files to the page cache (WithoutSync).
	noSync bool
}

// WithoutSync writes files without waiting for the disk: for a directory
// removed when the process exits (the kube-apiserver drop-in's temporary
// data directory), which a crash loses anyway. Each of the six files of
// a fresh directory otherwise waited for an fsync on the way to serving.
func WithoutSync() Option {
	return func(o *options) { o.noSync = true }
}

// WithClock sets the time source used to stamp and check validity; tests
// use it to make certificates that are already expired or about to be.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

func buildOptions(opts []Option) options {
	o := options{now: time.Now}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// Material is everything `kapi serve` needs when no certificate was given.
type Material struct {
	CA             *CA
	ServingCertPEM []byte
	ServingKeyPEM  []byte
	AdminCertPEM   []byte
	AdminKeyPEM    []byte
}

// Ensure makes (or reuses) the CA, a serving certificate valid for hosts
// plus the loopback names, and the admin client certificate, all in dir.
func Ensure(dir string, hosts []string, opts ...Option) (*Material, error) {
	ca, err := EnsureCA(dir, opts...)
	if err != nil {
		return nil, err
	}
	// The two leaves are independent: made (and their files written) at
	// once, as this is on every fresh server's path to serving.
	m := &Material{CA: ca}
	var servingErr, adminErr error
	var wg sync.WaitGroup
	wg.Go(func() { m.ServingCertPEM, m.ServingKeyPEM, servingErr = ca.EnsureServingCert(dir, hosts) })
	wg.Go(func() {
		m.AdminCertPEM, m.AdminKeyPEM, adminErr = ca.EnsureClientCert(dir, AdminFileBase, AdminUser, AdminGroups())
	})
	wg.Wait()
	if err := errors.Join(servingErr, adminErr); err != nil {
		return nil, err
	}
	return m, nil
}
