package kubeconfig

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kapi-dev/kapi/internal/pki"
)

func TestWriteAdmin(t *testing.T) {
	dir := t.TempDir()
	m, err := pki.Ensure(filepath.Join(dir, "pki"), nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, url string
		durable         bool
	}{
		{name: "new file in new directory", path: filepath.Join(dir, "sub", "admin.kubeconfig"), url: "https://127.0.0.1:6443", durable: true},
		{name: "replaces existing file", path: filepath.Join(dir, "admin.kubeconfig"), url: "https://[::1]:7443", durable: true},
		{name: "not synced, in a temporary directory", path: filepath.Join(dir, "tmp", "admin.kubeconfig"), url: "https://127.0.0.1:6443"},
	}
	if err := os.WriteFile(tests[1].path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := WriteAdmin(tt.path, tt.url, m.CA.CertPEM, m.AdminCertPEM, m.AdminKeyPEM, tt.durable); err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != 0o600 {
				t.Errorf("mode = %v, want 0600", st.Mode().Perm())
			}
			raw, err := clientcmd.LoadFromFile(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if raw.CurrentContext != ContextName || raw.Contexts[ContextName].AuthInfo != UserName || raw.Contexts[ContextName].Cluster != ClusterName {
				t.Errorf("context = %q %+v, want %q -> cluster %q user %q", raw.CurrentContext, raw.Contexts[raw.CurrentContext], ContextName, ClusterName, UserName)
			}
			cfg, err := clientcmd.BuildConfigFromFlags("", tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != tt.url {
				t.Errorf("Host = %q, want %q", cfg.Host, tt.url)
			}
			for name, c := range map[string][2][]byte{
				"CAData":   {cfg.TLSClientConfig.CAData, m.CA.CertPEM},
				"CertData": {cfg.TLSClientConfig.CertData, m.AdminCertPEM},
				"KeyData":  {cfg.TLSClientConfig.KeyData, m.AdminKeyPEM},
			} {
				if !bytes.Equal(c[0], c[1]) {
					t.Errorf("%s does not match what was written", name)
				}
			}
			if _, err := rest.TLSConfigFor(cfg); err != nil {
				t.Errorf("TLS config from kubeconfig: %v", err)
			}
			leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(tt.path), ".*.tmp-*"))
			if len(leftovers) != 0 {
				t.Errorf("temporary files left behind: %v", leftovers)
			}
		})
	}
}
