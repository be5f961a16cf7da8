package webhook

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeKubeconfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A webhook admission kubeconfig gives the credentials for calling a
// webhook: the user named by the target's host:port (the port left out
// for 443), else the "*" user; tokens and basic auth as headers.
func TestAuthInfoCredentials(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("Authorization")
		echo(w, r)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, users, want string
	}{
		{"by host:port", "- name: " + host + "\n  user:\n    token: exact\n- name: '*'\n  user:\n    token: wild\n", "Bearer exact"},
		{"wildcard", "- name: other:443\n  user:\n    token: other\n- name: '*'\n  user:\n    token: wild\n", "Bearer wild"},
		{"token file", "- name: '*'\n  user:\n    tokenFile: " + tokenFile + "\n", "Bearer from-file"},
		{"basic", "- name: '*'\n  user:\n    username: u\n    password: p\n", "Basic dTpw"},
		{"nobody", "- name: other\n  user:\n    token: other\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := LoadAuthInfo(writeKubeconfig(t, "apiVersion: v1\nkind: Config\nusers:\n"+tt.users))
			if err != nil {
				t.Fatal(err)
			}
			m := NewClientManager(nil, 0).WithAuthInfo(r)
			c, err := m.Client(ClientConfig{Name: "w", URL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			got = ""
			var out echoMsg
			if err := c.Post(context.Background(), echoMsg{Value: "x"}, &out); err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Authorization = %q, want %q", got, tt.want)
			}
		})
	}
}

// Service webhooks are looked up as name.namespace.svc:port, and without
// the port for 443.
func TestAuthInfoServiceKeys(t *testing.T) {
	r, err := LoadAuthInfo(writeKubeconfig(t, "apiVersion: v1\nkind: Config\nusers:\n- name: hook.ns.svc\n  user:\n    token: svc443\n- name: hook.ns.svc:8443\n  user:\n    token: svc8443\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		host, want string
	}{{"hook.ns.svc:443", "svc443"}, {"hook.ns.svc:8443", "svc8443"}, {"hook.ns.svc:9443", ""}} {
		ai := r.forHost(tt.host)
		if got := ""; ai != nil {
			got = ai.Token
			if got != tt.want {
				t.Errorf("%s: token %q, want %q", tt.host, got, tt.want)
			}
		} else if tt.want != "" {
			t.Errorf("%s: no user, want %q", tt.host, tt.want)
		}
	}
}

// Credentials kapi cannot use (exec plugins, auth providers,
// impersonation) are refused when the file is loaded, not ignored; so is
// a relative path, as upstream.
func TestAuthInfoRefused(t *testing.T) {
	for _, users := range []string{
		"- name: '*'\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: x\n",
		"- name: '*'\n  user:\n    as: admin\n    token: t\n",
	} {
		if _, err := LoadAuthInfo(writeKubeconfig(t, "apiVersion: v1\nkind: Config\nusers:\n"+users)); err == nil {
			t.Errorf("accepted %q", users)
		}
	}
	if _, err := LoadAuthInfo("relative/kubeconfig"); err == nil || !strings.Contains(err.Error(), "must be an absolute file path") {
		t.Errorf("relative path: %v", err)
	}
}
