package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	certutil "k8s.io/client-go/util/cert"
)

// writeKeyPair writes a self-signed certificate and its key under
// t.TempDir() and returns their paths.
func writeKeyPair(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("front-proxy-client", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "front-proxy-client.crt"), filepath.Join(dir, "front-proxy-client.key")
	for path, data := range map[string][]byte{certFile: certPEM, keyFile: keyPEM} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return certFile, keyFile
}

// TestProxyClientCertFlags pins --proxy-client-cert-file and
// --proxy-client-key-file: both or neither, loadable as a key pair, and
// every refusal names the flag at fault.
func TestProxyClientCertFlags(t *testing.T) {
	certFile, keyFile := writeKeyPair(t)
	otherCert, _ := writeKeyPair(t)
	garbage := filepath.Join(t.TempDir(), "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing.pem")
	for _, tc := range []struct {
		name       string
		cert, key  string
		wantErrors []string // substrings; none means accepted
	}{
		{name: "neither"},
		{name: "valid pair", cert: certFile, key: keyFile},
		{name: "cert only", cert: certFile, wantErrors: []string{"--proxy-client-cert-file needs --proxy-client-key-file"}},
		{name: "key only", key: keyFile, wantErrors: []string{"--proxy-client-key-file needs --proxy-client-cert-file"}},
		{name: "missing cert", cert: missing, key: keyFile, wantErrors: []string{"--proxy-client-cert-file:", "missing.pem"}},
		{name: "missing key", cert: certFile, key: missing, wantErrors: []string{"--proxy-client-key-file:", "missing.pem"}},
		{name: "mismatched pair", cert: otherCert, key: keyFile, wantErrors: []string{"not a key pair", "--proxy-client-cert-file", "--proxy-client-key-file"}},
		{name: "unparsable cert", cert: garbage, key: keyFile, wantErrors: []string{"not a key pair", "garbage.pem"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var args []string
			if tc.cert != "" {
				args = append(args, "--proxy-client-cert-file="+tc.cert)
			}
			if tc.key != "" {
				args = append(args, "--proxy-client-key-file="+tc.key)
			}
			o, _, err := parseKubeAPIServer(t, args)
			if len(tc.wantErrors) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if sec := o.Config().Security; sec.ProxyClientCertFile != tc.cert || sec.ProxyClientKeyFile != tc.key {
					t.Errorf("SecurityConfig has %q, %q; want %q, %q", sec.ProxyClientCertFile, sec.ProxyClientKeyFile, tc.cert, tc.key)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, want an error with %q", tc.wantErrors)
			}
			for _, want := range tc.wantErrors {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

// TestRequestHeaderFlagsNeedClientCA pins that a --requestheader-*
// setting kapi would neither use nor publish in
// extension-apiserver-authentication (no --requestheader-client-ca-file)
// is refused, naming the flag.
func TestRequestHeaderFlagsNeedClientCA(t *testing.T) {
	for _, flag := range []string{
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-uid-headers=X-Remote-Uid",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
	} {
		name := strings.Split(flag, "=")[0]
		t.Run(name, func(t *testing.T) {
			_, _, err := parseKubeAPIServer(t, []string{flag})
			if err == nil || !strings.Contains(err.Error(), name+" needs --requestheader-client-ca-file") {
				t.Errorf("error = %v, want a refusal naming %s", err, name)
			}
			if _, _, err := parseKubeAPIServer(t, []string{flag, "--requestheader-client-ca-file=/etc/kubernetes/pki/front-proxy-ca.crt"}); err != nil {
				t.Errorf("with a client CA: %v", err)
			}
		})
	}
}
