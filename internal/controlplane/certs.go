package controlplane

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"os"

	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/internal/pki"
)

// servingCerts is what serving and the admin kubeconfig need.
type servingCerts struct {
	cert tls.Certificate
	// loopback is the certificate served to kapi's own loopback clients
	// (loopbackServerName), and loopbackPEM its certificate, which they
	// trust.
	loopback     tls.Certificate
	loopbackPEM  []byte
	clientCAs    *x509.CertPool
	caPEM        []byte
	adminCertPEM []byte
	adminKeyPEM  []byte
	// userCert is true when the serving certificate came from
	// --tls-cert-file, so kapi's CA may not be the one that signed it.
	userCert bool
}

// servingMaterial loads or generates the CA, the serving certificate and the
// admin client certificate in --cert-dir, and the client CA pool.
func servingMaterial(c *Config) (*servingCerts, error) {
	hosts := []string{"localhost", "127.0.0.1", "::1"}
	for _, ip := range []net.IP{c.BindAddress, c.AdvertiseAddress} {
		if ip != nil && !ip.IsUnspecified() {
			hosts = append(hosts, ip.String())
		}
	}
	var opts []pki.Option
	if c.DataDirIsTemporary {
		opts = append(opts, pki.WithoutSync())
	}
	m, err := pki.Ensure(c.CertDir, hosts, opts...)
	if err != nil {
		return nil, fmt.Errorf("certificates in --cert-dir %s: %w", c.CertDir, err)
	}
	sc := &servingCerts{caPEM: m.CA.CertPEM, adminCertPEM: m.AdminCertPEM, adminKeyPEM: m.AdminKeyPEM, clientCAs: m.CA.CertPool()}
	if sc.loopback, sc.loopbackPEM, err = pki.SelfSigned(loopbackServerName); err != nil {
		return nil, fmt.Errorf("loopback certificate: %w", err)
	}
	if c.TLSCertFile != "" {
		sc.cert, err = pki.LoadKeyPair(c.TLSCertFile, c.TLSKeyFile)
		if err != nil {
			return nil, fmt.Errorf("--tls-cert-file/--tls-private-key-file: %w", err)
		}
		sc.userCert = true
	} else if sc.cert, err = tls.X509KeyPair(m.ServingCertPEM, m.ServingKeyPEM); err != nil {
		return nil, fmt.Errorf("generated serving certificate: %w", err)
	}
	if c.ClientCAFile != "" {
		_, pemBytes, err := pki.LoadCertPool(c.ClientCAFile)
		if err != nil {
			return nil, fmt.Errorf("--client-ca-file: %w", err)
		}
		if !sc.clientCAs.AppendCertsFromPEM(pemBytes) {
			return nil, fmt.Errorf("--client-ca-file %s: no certificates found", c.ClientCAFile)
		}
	}
	return sc, nil
}

// rootCA is the bundle that verifies the serving certificate, which
// controllers publish as kube-root-ca.crt: kapi's CA, or, for
// --tls-cert-file, the CA certificates in that file (a self-signed
// certificate is its own CA). A certificate file without its CA leaves
// kapi's CA, the best kapi knows.
func (sc *servingCerts) rootCA(c *Config) []byte {
	if !sc.userCert {
		return sc.caPEM
	}
	data, err := os.ReadFile(c.TLSCertFile)
	if err != nil {
		return sc.caPEM
	}
	certs, err := pki.ParseCertsPEM(data)
	if err != nil {
		return sc.caPEM
	}
	var out []byte
	for _, cert := range certs {
		if cert.IsCA {
			out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})...)
		}
	}
	if len(out) == 0 {
		return sc.caPEM
	}
	return out
}

// clientCAPEM is the bundle client certificates are verified with:
// kapi's CA and --client-ca-file.
func (sc *servingCerts) clientCAPEM(c *Config) ([]byte, error) {
	out := append([]byte{}, sc.caPEM...)
	if c.ClientCAFile != "" {
		data, err := os.ReadFile(c.ClientCAFile)
		if err != nil {
			return nil, fmt.Errorf("--client-ca-file: %w", err)
		}
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, data...)
	}
	return out, nil
}

// loopbackServerName is the name kapi's own clients ask the listener
// for, and the only name on the certificate served to them, as
// kube-apiserver's loopback clients do.
const loopbackServerName = "apiserver-loopback-client"

// loopbackConfig is how kapi talks to itself: the loopback token's user
// (system:apiserver) over the real listener. The handshake asks for the
// in-memory loopback certificate (an ECDSA key made at each start), not
// the serving one: that one may be a user's RSA key, several times the
// CPU per handshake, or signed by a CA kapi does not have.
func (sc *servingCerts) loopbackConfig(url, token string) *rest.Config {
	return &rest.Config{
		Host:        url,
		QPS:         -1,
		Burst:       -1,
		BearerToken: token,
		TLSClientConfig: rest.TLSClientConfig{
			ServerName: loopbackServerName,
			CAData:     sc.loopbackPEM,
		},
	}
}

// adminConfig is the administrator's (kapi-admin, in system:masters)
// config over the real listener, handed to an in-process harness.
func (sc *servingCerts) adminConfig(url string) *rest.Config {
	cfg := &rest.Config{
		Host:  url,
		QPS:   -1,
		Burst: -1,
		TLSClientConfig: rest.TLSClientConfig{
			CAData:   sc.caPEM,
			CertData: sc.adminCertPEM,
			KeyData:  sc.adminKeyPEM,
		},
	}
	if sc.userCert {
		// The user's certificate may come from another CA; this client only
		// ever dials our own listener.
		cfg.TLSClientConfig.CAData = nil
		cfg.TLSClientConfig.Insecure = true
	}
	return cfg
}
