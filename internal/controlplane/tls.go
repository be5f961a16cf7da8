package controlplane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"

	"github.com/kapi-dev/kapi/internal/pki"
	"github.com/kapi-dev/kapi/internal/server"
	"github.com/kapi-dev/kapi/internal/server/dynamiccertificates"
)

// tlsServing is the secure port's TLS: serving certificates and client
// CAs, each reloaded from its file while kapi runs.
type tlsServing struct {
	info *server.SecureServingInfo
	// clientCAs verify client certificates (kapi's CA and
	// --client-ca-file); requestHeaderCA verifies front proxies.
	clientCAs       func() *x509.CertPool
	requestHeaderCA *dynamiccertificates.ClientCA
	run             []func(context.Context)
}

// newTLSServing builds the TLS of listener from the generated or given
// serving pair, --tls-sni-cert-key, --tls-min-version, --tls-cipher-suites,
// kapi's CA, --client-ca-file and --requestheader-client-ca-file; loopback
// is served to kapi's own clients (withLoopbackCertificate).
func newTLSServing(c *Config, listener net.Listener, loopback *tls.Certificate, logger *slog.Logger) (*tlsServing, error) {
	sec := &c.Security
	certFile, keyFile := c.TLSCertFile, c.TLSKeyFile
	if certFile == "" {
		certFile, keyFile = filepath.Join(c.CertDir, pki.ServingCertFile), filepath.Join(c.CertDir, pki.ServingKeyFile)
	}
	var sni []dynamiccertificates.SNICertKey
	for _, s := range sec.TLSSNICertKeys {
		k, err := dynamiccertificates.ParseSNICertKey(s)
		if err != nil {
			return nil, fmt.Errorf("--tls-sni-cert-key: %w", err)
		}
		sni = append(sni, k)
	}
	logger = logger.With("component", "certificates")
	serving, err := dynamiccertificates.NewServing(certFile, keyFile, sni, 0, logger)
	if err != nil {
		return nil, err
	}
	minVersion, err := dynamiccertificates.ParseTLSVersion(sec.TLSMinVersion)
	if err != nil {
		return nil, fmt.Errorf("--tls-min-version: %w", err)
	}
	suites, err := dynamiccertificates.ParseCipherSuites(sec.TLSCipherSuites)
	if err != nil {
		return nil, fmt.Errorf("--tls-cipher-suites: %w", err)
	}
	t := &tlsServing{run: []func(context.Context){serving.Run}}
	ownCA, err := dynamiccertificates.NewClientCA(filepath.Join(c.CertDir, pki.CACertFile), 0, logger)
	if err != nil {
		return nil, err
	}
	cas := []*dynamiccertificates.ClientCA{ownCA}
	t.run = append(t.run, ownCA.Run)
	if c.ClientCAFile != "" {
		ca, err := dynamiccertificates.NewClientCA(c.ClientCAFile, 0, logger)
		if err != nil {
			return nil, fmt.Errorf("--client-ca-file: %w", err)
		}
		cas = append(cas, ca)
		t.run = append(t.run, ca.Run)
	}
	t.clientCAs = dynamiccertificates.UnionPool(cas...)
	hints := cas
	if f := sec.RequestHeader.ClientCAFile; f != "" {
		if t.requestHeaderCA, err = dynamiccertificates.NewClientCA(f, 0, logger); err != nil {
			return nil, fmt.Errorf("--requestheader-client-ca-file: %w", err)
		}
		hints = append(hints, t.requestHeaderCA)
		t.run = append(t.run, t.requestHeaderCA.Run)
	}
	t.info = &server.SecureServingInfo{
		Listener:       listener,
		GetCertificate: withLoopbackCertificate(serving.GetCertificate, loopback),
		ClientCAHints:  dynamiccertificates.UnionPool(hints...),
		MinTLSVersion:  minVersion,
		CipherSuites:   suites,
	}
	return t, nil
}

// start runs the reloaders until ctx ends.
func (t *tlsServing) start(ctx context.Context) {
	for _, run := range t.run {
		go run(ctx)
	}
}

// withLoopbackCertificate serves loopback to the clients that ask for
// loopbackServerName (kapi's own), and what get chooses to every other.
func withLoopbackCertificate(get func(*tls.ClientHelloInfo) (*tls.Certificate, error), loopback *tls.Certificate) func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	if loopback == nil {
		return get
	}
	return func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		if hello.ServerName == loopbackServerName {
			return loopback, nil
		}
		return get(hello)
	}
}
