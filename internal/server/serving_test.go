package server

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	x509authn "github.com/kapi-dev/kapi/internal/auth/authenticator/x509"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// clientCertCA issues client certificates in the serving tests.
type clientCertCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newClientCertCA(t *testing.T, cn string) *clientCertCA {
	t.Helper()
	cert, key := signCert(t, &x509.Certificate{
		Subject:               pkix.Name{CommonName: cn},
		KeyUsage:              x509.KeyUsageCertSign,
		IsCA:                  true,
		BasicConstraintsValid: true,
	}, nil)
	return &clientCertCA{cert: cert, key: key}
}

func (ca *clientCertCA) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// issue returns a client certificate for user.
func (ca *clientCertCA) issue(t *testing.T, user string) tls.Certificate {
	t.Helper()
	cert, key := signCert(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: user},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, ca)
	return tls.Certificate{Certificate: [][]byte{cert.Raw}, PrivateKey: key}
}

// signCert gives tmpl a new key, a serial and a validity, and signs it
// with ca, or with itself when ca is nil.
func signCert(t *testing.T, tmpl *x509.Certificate, ca *clientCertCA) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if tmpl.SerialNumber, err = rand.Int(rand.Reader, big.NewInt(1<<62)); err != nil {
		t.Fatal(err)
	}
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	parent, parentKey := tmpl, key
	if ca != nil {
		parent, parentKey = ca.cert, ca.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

// TestServingRequestsClientCertificates runs the server with an x509
// authenticator and client CA hints, and checks what clients with and
// without certificates see: every handshake succeeds, the authenticator
// decides, and the CAs named to the client follow the hints.
func TestServingRequestsClientCertificates(t *testing.T) {
	trusted := newClientCertCA(t, "trusted-ca")
	unknown := newClientCertCA(t, "unknown-ca")
	var hints atomic.Pointer[x509.CertPool]
	hints.Store(trusted.pool())

	c := NewConfig()
	c.Authentication = x509authn.New(trusted.pool())
	ts := startServer(t, c, func(c *Config) *GenericServer {
		c.SecureServing.ClientCAHints = hints.Load
		s := mustNew(t, c, "serving", NewNotFoundDelegate())
		s.Handler.NonAPIMux.Handle("/whoami", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, _ := request.UserFrom(r.Context())
			io.WriteString(w, u.GetName())
		}))
		return s
	})
	serverRoots := ts.client.Transport.(*http.Transport).TLSClientConfig.RootCAs

	// get dials a fresh connection, presenting cert if not nil, and returns
	// the status and body, and the CAs the server named.
	get := func(cert *tls.Certificate) (int, string, [][]byte) {
		t.Helper()
		var mu sync.Mutex
		var acceptable [][]byte
		tr := &http.Transport{ForceAttemptHTTP2: true, TLSClientConfig: &tls.Config{
			RootCAs: serverRoots,
			GetClientCertificate: func(info *tls.CertificateRequestInfo) (*tls.Certificate, error) {
				mu.Lock()
				defer mu.Unlock()
				acceptable = info.AcceptableCAs
				if cert == nil {
					return &tls.Certificate{}, nil
				}
				return cert, nil
			},
		}}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Get(ts.url + "/whoami")
		if err != nil {
			t.Fatalf("GET /whoami: %v", err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		return resp.StatusCode, string(body), acceptable
	}

	alice := trusted.issue(t, "alice")
	mallory := unknown.issue(t, "mallory")
	tests := []struct {
		name       string
		cert       *tls.Certificate
		hint       *clientCertCA
		wantStatus int
		wantUser   string
	}{
		{name: "no certificate", cert: nil, hint: trusted, wantStatus: http.StatusUnauthorized},
		{name: "a trusted certificate", cert: &alice, hint: trusted, wantStatus: http.StatusOK, wantUser: "alice"},
		{name: "a certificate from an unknown CA", cert: &mallory, hint: trusted, wantStatus: http.StatusUnauthorized},
		// Hints are only hints: naming the unknown CA trusts nothing more.
		{name: "new hints are named", cert: &mallory, hint: unknown, wantStatus: http.StatusUnauthorized},
		{name: "a trusted certificate not hinted", cert: &alice, hint: unknown, wantStatus: http.StatusOK, wantUser: "alice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hints.Store(tt.hint.pool())
			status, body, acceptable := get(tt.cert)
			if status != tt.wantStatus {
				t.Errorf("status = %d, want %d (body %q)", status, tt.wantStatus, body)
			}
			if tt.wantStatus == http.StatusOK && body != tt.wantUser {
				t.Errorf("user = %q, want %q", body, tt.wantUser)
			}
			if len(acceptable) != 1 || !bytes.Equal(acceptable[0], tt.hint.cert.RawSubject) {
				t.Errorf("acceptable CAs = %q, want the subject of %s", acceptable, tt.hint.cert.Subject)
			}
		})
	}
}

func TestTLSConfigClientAuth(t *testing.T) {
	cert, _ := selfSigned(t)
	ca := newClientCertCA(t, "ca")
	static := ca.pool()
	var calls atomic.Int32
	tests := []struct {
		name         string
		info         SecureServingInfo
		wantAuth     tls.ClientAuthType
		wantCAs      *x509.CertPool // on the config the handshake uses
		wantPerHello bool
	}{
		{name: "no client CA asks for no certificate", info: SecureServingInfo{Cert: cert}, wantAuth: tls.NoClientCert},
		{name: "a fixed pool", info: SecureServingInfo{Cert: cert, ClientCA: static}, wantAuth: tls.RequestClientCert, wantCAs: static},
		{
			name: "hints win over the fixed pool, asked per handshake",
			info: SecureServingInfo{Cert: cert, ClientCA: x509.NewCertPool(), ClientCAHints: func() *x509.CertPool {
				calls.Add(1)
				return static
			}},
			wantAuth: tls.RequestClientCert, wantCAs: static, wantPerHello: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := tt.info.tlsConfig()
			if err != nil {
				t.Fatal(err)
			}
			if (cfg.GetConfigForClient != nil) != tt.wantPerHello {
				t.Fatalf("GetConfigForClient set = %v, want %v", cfg.GetConfigForClient != nil, tt.wantPerHello)
			}
			if tt.wantPerHello {
				before := calls.Load()
				if cfg, err = cfg.GetConfigForClient(&tls.ClientHelloInfo{}); err != nil {
					t.Fatal(err)
				}
				if calls.Load() != before+1 {
					t.Errorf("hints asked %d times for one handshake", calls.Load()-before)
				}
				if len(cfg.Certificates) != 1 || cfg.MinVersion != tls.VersionTLS12 || len(cfg.NextProtos) != 2 {
					t.Errorf("per-handshake config lost the base settings: %d certificates, min version %#x, protocols %v",
						len(cfg.Certificates), cfg.MinVersion, cfg.NextProtos)
				}
			}
			if cfg.ClientAuth != tt.wantAuth {
				t.Errorf("ClientAuth = %v, want %v", cfg.ClientAuth, tt.wantAuth)
			}
			if cfg.ClientCAs != tt.wantCAs {
				t.Errorf("ClientCAs = %p, want %p", cfg.ClientCAs, tt.wantCAs)
			}
		})
	}
	if _, err := (&SecureServingInfo{ClientCA: static}).tlsConfig(); err == nil {
		t.Errorf("no certificate: want an error")
	}
}
