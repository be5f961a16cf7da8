package etcdcluster

import (
	"crypto/tls"
	"fmt"
	"path/filepath"

	"github.com/kapi-dev/kapi/internal/pki"
)

// tlsFiles are the PEM files of a TLS cluster, all in one directory.
type tlsFiles struct {
	ca, serverCert, serverKey, clientCert, clientKey string
}

// clientFileBase names the client certificate files: client.crt, client.key.
const clientFileBase = "client"

// newTLSFiles writes a CA, a serving certificate for localhost and
// 127.0.0.1, and a client certificate, all signed by that CA, into dir.
func newTLSFiles(dir string) (*tlsFiles, error) {
	ca, err := pki.EnsureCA(dir)
	if err != nil {
		return nil, err
	}
	if _, _, err := ca.EnsureServingCert(dir, nil); err != nil {
		return nil, err
	}
	if _, _, err := ca.EnsureClientCert(dir, clientFileBase, "etcd-client", nil); err != nil {
		return nil, err
	}
	return &tlsFiles{
		ca:         filepath.Join(dir, pki.CACertFile),
		serverCert: filepath.Join(dir, pki.ServingCertFile),
		serverKey:  filepath.Join(dir, pki.ServingKeyFile),
		clientCert: filepath.Join(dir, clientFileBase+".crt"),
		clientKey:  filepath.Join(dir, clientFileBase+".key"),
	}, nil
}

// serverArgs are the etcd flags that serve clients over TLS and require a
// client certificate signed by the CA.
func (f *tlsFiles) serverArgs() []string {
	return []string{
		"--cert-file=" + f.serverCert,
		"--key-file=" + f.serverKey,
		"--trusted-ca-file=" + f.ca,
		"--client-cert-auth",
	}
}

// clientConfig trusts the CA and presents the client certificate.
func (f *tlsFiles) clientConfig() (*tls.Config, error) {
	pool, _, err := pki.LoadCertPool(f.ca)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", f.ca, err)
	}
	cert, err := tls.LoadX509KeyPair(f.clientCert, f.clientKey)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", f.clientCert, err)
	}
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}
