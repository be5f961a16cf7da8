package server

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/kapi-dev/kapi/internal/endpoints/metrics"
	"github.com/kapi-dev/kapi/internal/server/dynamiccertificates"
)

// Upstream's HTTP server limits.
const (
	readHeaderTimeout     = 32 * time.Second
	idleTimeout           = 90 * time.Second
	maxHeaderBytes        = 1 << 20
	http2MaxStreams       = 250
	http2StreamBufferSize = 256 << 10 // a typical large object body
)

// tlsConfig builds the serving TLS configuration.
func (s *SecureServingInfo) tlsConfig() (*tls.Config, error) {
	if s.Cert == nil && s.GetCertificate == nil {
		return nil, errors.New("secure serving needs a certificate")
	}
	cfg := &tls.Config{
		MinVersion:     s.MinTLSVersion,
		CipherSuites:   s.CipherSuites,
		GetCertificate: s.GetCertificate,
		NextProtos:     []string{"h2", "http/1.1"},
	}
	if cfg.MinVersion == 0 {
		cfg.MinVersion = tls.VersionTLS12
	}
	if s.Cert != nil && s.GetCertificate == nil {
		cfg.Certificates = []tls.Certificate{*s.Cert}
	}
	if s.ClientCAHints == nil && s.ClientCA == nil {
		return cfg, nil
	}
	// Client certificates are one way to authenticate among several, and
	// each authenticator trusts its own CAs, so the handshake only asks for
	// a certificate: a client without one, or with one the authenticators
	// will reject, still gets through, and gets a 401 rather than a TLS
	// alert.
	cfg.ClientAuth = tls.RequestClientCert
	if s.ClientCAHints == nil {
		cfg.ClientCAs = s.ClientCA
		return cfg, nil
	}
	base, hints := cfg.Clone(), s.ClientCAHints
	cfg.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
		// A copy per handshake, so a reloaded bundle is named from the next
		// handshake on without touching a config in use.
		c := base.Clone()
		c.ClientCAs = hints()
		return c, nil
	}
	return cfg, nil
}

// newHTTPServer returns the HTTP/1.1 and HTTP/2 server for handler.
// Failed TLS handshakes count in apiserver_tls_handshake_errors_total.
func newHTTPServer(ss *SecureServingInfo, handler http.Handler, logger *slog.Logger, m *metrics.Metrics) (*http.Server, error) {
	tlsCfg, err := ss.tlsConfig()
	if err != nil {
		return nil, err
	}
	for _, name := range dynamiccertificates.InsecureCipherSuiteNames(ss.CipherSuites) {
		logger.Warn("Use of insecure cipher detected", "cipher", name)
	}
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(true)
	return &http.Server{
		Handler:           handler,
		TLSConfig:         tlsCfg,
		Protocols:         &protocols,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		HTTP2: &http.HTTP2Config{
			MaxConcurrentStreams:          http2MaxStreams,
			MaxReadFrameSize:              http2StreamBufferSize,
			MaxReceiveBufferPerStream:     http2StreamBufferSize,
			MaxReceiveBufferPerConnection: http2StreamBufferSize * http2MaxStreams,
		},
		ErrorLog: slog.NewLogLogger(serverErrorHandler{logger.Handler(), m}, slog.LevelWarn),
	}, nil
}

// serverErrorHandler demotes TLS handshake failures, which port scanners
// and health probers cause all day, to debug level.
type serverErrorHandler struct {
	slog.Handler
	metrics *metrics.Metrics
}

func (h serverErrorHandler) Handle(ctx context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "TLS handshake error") {
		h.metrics.TLSHandshakeError()
		r = slog.NewRecord(r.Time, slog.LevelDebug, r.Message, r.PC)
	}
	if !h.Handler.Enabled(ctx, r.Level) {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}
