package controlplane

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

// A WebhookAdmissionConfiguration's kubeConfigFile gives the webhook
// plugin its own client credentials; a file kapi cannot honour is refused
// when the chain is built.
func TestWebhookAdmissionKubeconfig(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	if err := os.WriteFile(good, []byte("apiVersion: v1\nkind: Config\nusers:\n- name: '*'\n  user:\n    token: t\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	exec := filepath.Join(dir, "exec")
	if err := os.WriteFile(exec, []byte("apiVersion: v1\nkind: Config\nusers:\n- name: '*'\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, config, wantErr string
		ownClients            bool
	}{
		{"none", "", "", false},
		{"no kubeconfig", `{"apiVersion":"apiserver.config.k8s.io/v1","kind":"WebhookAdmissionConfiguration"}`, "", false},
		{"kubeconfig", `{"kubeConfigFile":"` + good + `"}`, "", true},
		{"relative", `{"kubeConfigFile":"good"}`, "must be an absolute file path", false},
		{"exec plugin", `{"kubeConfigFile":"` + exec + `"}`, "exec credential plugins are not supported by kapi", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset()
			d := &admissionDeps{
				informers:       &sharedInformers{client: client, factory: newFanoutFactory(informers.NewSharedInformerFactory(client, 0), nil)},
				serviceResolver: &endpointResolver{},
				pluginConfig:    func(string) ([]byte, error) { return []byte(tt.config), nil },
			}
			o, err := d.webhookPluginOptions("ValidatingAdmissionWebhook")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if own := o.Clients != d.webhookOptions().Clients; own != tt.ownClients {
				t.Errorf("own client manager = %v, want %v", own, tt.ownClients)
			}
		})
	}
}
