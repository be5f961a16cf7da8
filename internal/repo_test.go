package internal_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoSecretsOrDataTracked fails when git tracks a private key, a
// kubeconfig that carries credentials, or a file of an etcd data
// directory: a test or a person ran a server inside the source tree and the
// result was committed.
func TestNoSecretsOrDataTracked(t *testing.T) {
	root := moduleRoot(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if rel == "" {
			continue
		}
		if why := forbiddenTrackedPath(rel); why != "" {
			t.Errorf("%s is tracked: %s", rel, why)
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			continue // deleted in the work tree
		}
		if why := forbiddenTrackedContent(rel, data); why != "" {
			t.Errorf("%s is tracked: %s", rel, why)
		}
	}
}

// forbiddenTrackedPath judges a path by its name alone.
func forbiddenTrackedPath(rel string) string {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for _, p := range parts[:len(parts)-1] {
		if p == "kapi-data" {
			return "it lies in a kapi data directory"
		}
	}
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] == "member" && (parts[i+1] == "wal" || parts[i+1] == "snap") {
			return "it is part of an etcd data directory"
		}
	}
	base := parts[len(parts)-1]
	if strings.HasSuffix(base, ".wal") || base == "db" && len(parts) > 1 && parts[len(parts)-2] == "snap" {
		return "it is an etcd data file"
	}
	return ""
}

// privateKeyMarkers are the PEM headers of private keys in every encoding
// Go and OpenSSL write.
var privateKeyMarkers = [][]byte{
	[]byte("-----BEGIN PRIVATE KEY-----"),
	[]byte("-----BEGIN RSA PRIVATE KEY-----"),
	[]byte("-----BEGIN EC PRIVATE KEY-----"),
	[]byte("-----BEGIN ENCRYPTED PRIVATE KEY-----"),
	[]byte("-----BEGIN OPENSSH PRIVATE KEY-----"),
}

// kubeconfigCredentials are the kubeconfig user fields that hold a secret.
var kubeconfigCredentials = []string{"client-key-data:", "token:", "password:"}

// forbiddenTrackedContent judges a file by what it holds. Go sources and
// test fixtures under testdata/ may hold throw-away keys generated for a
// test; everything else may not.
func forbiddenTrackedContent(rel string, data []byte) string {
	if strings.HasSuffix(rel, ".go") || strings.Contains("/"+filepath.ToSlash(rel), "/testdata/") {
		return ""
	}
	for _, m := range privateKeyMarkers {
		if bytes.Contains(data, m) {
			return "it holds a private key"
		}
	}
	if bytes.Contains(data, []byte("kind: Config")) && bytes.Contains(data, []byte("users:")) {
		for _, c := range kubeconfigCredentials {
			if bytes.Contains(data, []byte(c)) {
				return "it is a kubeconfig with credentials (" + strings.TrimSuffix(c, ":") + ")"
			}
		}
	}
	return ""
}

func TestForbiddenTrackedFiles(t *testing.T) {
	cases := []struct {
		path    string
		content string
		bad     bool
	}{
		{"internal/cli/kapi-data/pki/ca.crt", "", true},
		{"kapi-data/admin.kubeconfig", "", true},
		{"x/etcd/member/wal/0000000000000000-0000000000000000.wal", "", true},
		{"x/etcd/member/snap/db", "", true},
		{"deploy/tls.key", "-----BEGIN EC PRIVATE KEY-----\nMHc=\n-----END EC PRIVATE KEY-----\n", true},
		{"deploy/admin.kubeconfig", "apiVersion: v1\nkind: Config\nusers:\n- name: a\n  user:\n    client-key-data: AAAA\n", true},
		{"deploy/token.kubeconfig", "apiVersion: v1\nkind: Config\nusers:\n- name: a\n  user:\n    token: abc\n", true},
		{"docs/example.kubeconfig", "apiVersion: v1\nkind: Config\nusers:\n- name: a\n  user:\n    exec: {}\n", false},
		{"internal/pki/testdata/key.pem", "-----BEGIN PRIVATE KEY-----\n", false},
		{"internal/pki/pki_test.go", "-----BEGIN PRIVATE KEY-----", false},
		{"README.md", "run kapi serve", false},
	}
	for _, c := range cases {
		why := forbiddenTrackedPath(c.path)
		if why == "" {
			why = forbiddenTrackedContent(c.path, []byte(c.content))
		}
		if (why != "") != c.bad {
			t.Errorf("%s: got %q, want forbidden=%v", c.path, why, c.bad)
		}
	}
}
