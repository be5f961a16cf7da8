package dynamiccertificates

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Serving hands out serving certificates by SNI from files it reloads: a
// default pair and any number of SNI pairs. Use GetCertificate as
// tls.Config.GetCertificate and keep Run running.
type Serving struct {
	logger   *slog.Logger
	interval time.Duration
	// hasDefault says pairs[0] is the default pair; without one the first
	// SNI pair serves clients no name matches.
	hasDefault bool

	mu    sync.Mutex // serializes reloads; pairs are only touched under it
	pairs []*keyPairFile

	table atomic.Pointer[certTable]
}

// keyPairFile is one certificate and key file pair and its last good
// content.
type keyPairFile struct {
	certFile, keyFile string
	names             []string // explicit SNI names; none for the default
	seen              digest   // of the content last read, good or bad
	cert              *tls.Certificate
}

// NewServing loads the default pair (certFile, keyFile; both may be empty
// when sni is not) and the SNI pairs, failing if any does not load. Run
// re-reads them every interval (DefaultInterval if not positive); a nil
// logger discards.
func NewServing(certFile, keyFile string, sni []SNICertKey, interval time.Duration, logger *slog.Logger) (*Serving, error) {
	s := &Serving{logger: orDiscard(logger), interval: interval}
	switch {
	case certFile != "" && keyFile != "":
		s.hasDefault = true
		s.pairs = append(s.pairs, &keyPairFile{certFile: certFile, keyFile: keyFile})
	case certFile != "" || keyFile != "":
		return nil, errors.New("a serving certificate needs both a certificate and a key file")
	case len(sni) == 0:
		return nil, errors.New("missing filename for serving cert")
	}
	for i, k := range sni {
		if k.CertFile == "" || k.KeyFile == "" {
			return nil, fmt.Errorf("failed to load SNI cert and key [%d]: missing filename for serving cert", i)
		}
		s.pairs = append(s.pairs, &keyPairFile{certFile: k.CertFile, keyFile: k.KeyFile, names: k.Names})
	}
	for i, p := range s.pairs {
		if _, err := p.load(); err != nil {
			if s.hasDefault && i == 0 {
				return nil, fmt.Errorf("loading serving cert %q and key %q: %w", p.certFile, p.keyFile, err)
			}
			return nil, fmt.Errorf("failed to load SNI cert and key %q: %w", p.certFile, err)
		}
	}
	s.table.Store(s.buildTable())
	return s, nil
}

// load reads the pair and, if its content changed and parses, takes it.
// It reports whether the certificate changed; content that does not parse
// is an error once, and is not parsed again until it changes.
func (p *keyPairFile) load() (bool, error) {
	files, d, err := readFiles(p.certFile, p.keyFile)
	if err != nil {
		return false, err
	}
	if p.cert != nil && d == p.seen {
		return false, nil
	}
	p.seen = d
	if len(files[0]) == 0 || len(files[1]) == 0 {
		return false, fmt.Errorf("missing content for serving cert %q", p.certFile)
	}
	cert, err := tls.X509KeyPair(files[0], files[1])
	if err != nil {
		return false, err
	}
	// The SNI table reads the names from Leaf, which Go fills unless told
	// not to (GODEBUG x509keypairleaf=0).
	if cert.Leaf == nil {
		if cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return false, err
		}
	}
	p.cert = &cert
	return true, nil
}

// Run re-reads the files every interval until ctx ends.
func (s *Serving) Run(ctx context.Context) {
	s.logger.Debug("watching serving certificates", "interval", s.interval)
	every(ctx, s.interval, s.reload)
}

// reload re-reads every pair and swaps in a new table if any changed.
func (s *Serving) reload() {
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := false
	for _, p := range s.pairs {
		ok, err := p.load()
		if err != nil {
			s.logger.Error("Not reloading a serving certificate; the previous one stays in use",
				"certFile", p.certFile, "keyFile", p.keyFile, "err", err)
			continue
		}
		if ok {
			s.logger.Info("Loaded a new serving certificate", "certFile", p.certFile,
				"subject", p.cert.Leaf.Subject.String(), "dnsNames", p.cert.Leaf.DNSNames,
				"notAfter", p.cert.Leaf.NotAfter)
			changed = true
		}
	}
	if changed {
		s.table.Store(s.buildTable())
	}
}

// buildTable makes the lookup table of the current pairs; s.mu is held or
// s is not yet shared.
func (s *Serving) buildTable() *certTable {
	var def *tls.Certificate
	sni := s.pairs
	if s.hasDefault {
		def, sni = s.pairs[0].cert, s.pairs[1:]
	}
	named := make([]namedCert, len(sni))
	for i, p := range sni {
		named[i] = namedCert{cert: p.cert, names: p.names}
	}
	return newCertTable(def, named)
}

// GetCertificate implements tls.Config.GetCertificate.
func (s *Serving) GetCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return s.table.Load().lookup(hello), nil
}
