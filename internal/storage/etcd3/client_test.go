package etcd3

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/internal/pki"
)

func TestNewClientErrors(t *testing.T) {
	dir := t.TempDir()
	ca, err := pki.EnsureCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ca.EnsureClientCert(dir, "client", "kapi", nil); err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, pki.CACertFile)
	cert, key := filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key")
	missing := filepath.Join(dir, "missing")
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	endpoints := []string{"https://127.0.0.1:2379"}

	for _, tc := range []struct {
		name    string
		cfg     ClientConfig
		wantErr []string // substrings; none means success
	}{
		{"plain", ClientConfig{Endpoints: []string{"http://127.0.0.1:2379"}}, nil},
		{"tls", ClientConfig{Endpoints: endpoints, CAFile: caFile, CertFile: cert, KeyFile: key}, nil},
		{"system roots and a client certificate", ClientConfig{Endpoints: endpoints, CertFile: cert, KeyFile: key}, nil},
		{"no endpoints", ClientConfig{}, []string{"no endpoints"}},
		{"missing CA", ClientConfig{Endpoints: endpoints, CAFile: missing}, []string{"CA file", missing}},
		{"CA not PEM", ClientConfig{Endpoints: endpoints, CAFile: notPEM}, []string{"CA file", notPEM}},
		{"certificate without key", ClientConfig{Endpoints: endpoints, CertFile: cert}, []string{cert, "both or neither"}},
		{"key without certificate", ClientConfig{Endpoints: endpoints, KeyFile: key}, []string{key, "both or neither"}},
		{"missing certificate", ClientConfig{Endpoints: endpoints, CertFile: missing, KeyFile: key}, []string{"certificate file", missing}},
		{"missing key", ClientConfig{Endpoints: endpoints, CertFile: cert, KeyFile: missing}, []string{"key file", missing}},
		{"key of another certificate", ClientConfig{Endpoints: endpoints, CertFile: caFile, KeyFile: key}, []string{caFile, key}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, err := NewClient(tc.cfg)
			if err == nil {
				defer client.Close()
			}
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("NewClient: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("NewClient succeeded, want an error with %q", tc.wantErr)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
}
