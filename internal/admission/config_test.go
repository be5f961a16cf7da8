package admission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadConfiguration(t *testing.T) {
	known := []string{"EventRateLimit", "PodSecurity", "ValidatingAdmissionWebhook"}
	for _, tc := range []struct {
		name, file string
		want       map[string]string
		wantErr    string
	}{
		{"v1 with path and embedded", `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: EventRateLimit
  path: erl.yaml
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults: {enforce: baseline}
`, map[string]string{
			"EventRateLimit": `{"kind":"Configuration","limits":[{"burst":5,"qps":1,"type":"Server"}]}`,
			"PodSecurity":    `{"apiVersion":"pod-security.admission.config.k8s.io/v1","defaults":{"enforce":"baseline"},"kind":"PodSecurityConfiguration"}`,
		}, ""},
		{"v1alpha1", "apiVersion: apiserver.k8s.io/v1alpha1\nkind: AdmissionConfiguration\nplugins: []\n", map[string]string{}, ""},
		{"unknown plugin", "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: Nope\n  configuration: {}\n", nil, `admission plugin "Nope" is unknown`},
		{"wrong kind", "apiVersion: v1\nkind: ConfigMap\n", nil, "is not an AdmissionConfiguration"},
		{"unknown field", "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugin: []\n", nil, "unknown field"},
		{"missing path", "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  path: missing.yaml\n", nil, "missing.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "erl.yaml"), []byte("kind: Configuration\nlimits:\n- type: Server\n  qps: 1\n  burst: 5\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "admission.yaml")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := ReadConfiguration(path, known)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d plugins, want %d", len(got), len(tc.want))
			}
			for name, want := range tc.want {
				if string(got[name]) != want {
					t.Errorf("%s = %s, want %s", name, got[name], want)
				}
			}
		})
	}
}
