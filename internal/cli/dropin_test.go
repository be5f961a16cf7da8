package cli

import (
	"bytes"
	"github.com/kapi-dev/kapi/internal/controlplane"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCommandFor(t *testing.T) {
	for _, tc := range []struct{ argv0, want string }{
		{"/usr/local/bin/kube-apiserver", "kube-apiserver"},
		{"kube-apiserver", "kube-apiserver"},
		{"/assets/etcd", "etcd"},
		{"./kapi", "kapi"},
		{"/bin/kube-apiserver-old", "kapi"},
	} {
		if got := CommandFor(tc.argv0).Name(); got != tc.want {
			t.Errorf("CommandFor(%q) = %s, want %s", tc.argv0, got, tc.want)
		}
	}
}

// readArgs reads a captured argument list, one argument a line, with its
// placeholders replaced.
func readArgs(t *testing.T, name string, vars map[string]string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for k, v := range vars {
		s = strings.ReplaceAll(s, "{{"+k+"}}", v)
	}
	return strings.Fields(s)
}

// parseKubeAPIServer parses args as the drop-in does and runs its
// completion; the temporary data directory goes under t.TempDir().
func parseKubeAPIServer(t *testing.T, args []string) (*kubeAPIServerOptions, string, error) {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	o := newKubeAPIServerOptions()
	o.resolveBindAddress = nil
	cmd := newKubeAPIServerCommand(o)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.ParseFlags(args); err != nil {
		return nil, "", cmd.FlagErrorFunc()(cmd, err)
	}
	var logs bytes.Buffer
	cleanup, err := o.complete(cmd.Flags(), slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(cleanup)
	if err == nil {
		err = o.Validate()
	}
	return o, logs.String(), err
}

// TestKubeAPIServerAcceptsEnvtestArgs parses the exact arguments
// controller-runtime v0.25.2's envtest gives kube-apiserver.
func TestKubeAPIServerAcceptsEnvtestArgs(t *testing.T) {
	certDir := t.TempDir()
	args := readArgs(t, "envtest-v0.25.2-kube-apiserver.args", map[string]string{"CERT_DIR": certDir, "PORT": "40001", "ETCD_PORT": "40002"})
	o, logs, err := parseKubeAPIServer(t, args)
	if err != nil {
		t.Fatalf("envtest's arguments refused: %v", err)
	}
	if got := strings.Count(logs, "flag accepted but ignored"); got != 1 || !strings.Contains(logs, "--allow-privileged") {
		t.Errorf("want one warning naming --allow-privileged, got:\n%s", logs)
	}
	c := o.Config()
	if !c.Security.AnonymousAuth {
		t.Error("anonymous auth is off; kube-apiserver's default is on")
	}
	if !slices.Equal(c.Security.AuthorizationModes, []string{"RBAC"}) {
		t.Errorf("authorization modes = %v, want [RBAC]", c.Security.AuthorizationModes)
	}
	if want := filepath.Join(certDir, "apiserver.crt"); c.TLSCertFile != want {
		t.Errorf("serving cert = %q, want %q", c.TLSCertFile, want)
	}
	if strings.HasPrefix(c.CertDir, certDir) || strings.HasPrefix(c.DataDir, certDir) {
		t.Errorf("kapi's own state (cert dir %s, data dir %s) is inside --cert-dir %s", c.CertDir, c.DataDir, certDir)
	}
	if !slices.Equal(c.EtcdServers, []string{"http://127.0.0.1:40002"}) || c.SecurePort != 40001 {
		t.Errorf("etcd servers %v, secure port %d", c.EtcdServers, c.SecurePort)
	}
	// envtest disables ServiceAccount; kapi passes that on once it has the plugin.
	if want := implementedOf("ServiceAccount", "NodeRestriction"); !slices.Equal(c.Security.DisableAdmissionPlugins, want) {
		t.Errorf("disabled admission plugins = %v, want %v", c.Security.DisableAdmissionPlugins, want)
	}
}

// TestEtcdAcceptsEnvtestArgs parses the exact arguments envtest gives etcd.
func TestEtcdAcceptsEnvtestArgs(t *testing.T) {
	dataDir := t.TempDir()
	args := readArgs(t, "envtest-v0.25.2-etcd.args", map[string]string{"DATA_DIR": dataDir, "ETCD_PORT": "40002", "PEER_PORT": "40003"})
	o := newEtcdOptions()
	cmd := newEtcdCommand(o)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	opts, err := o.embedded()
	if err != nil {
		t.Fatal(err)
	}
	if opts.Dir != dataDir || !opts.UnsafeNoFsync || len(opts.ListenClientURLs) != 1 || opts.ListenClientURLs[0].Host != "127.0.0.1:40002" ||
		len(opts.ListenPeerURLs) != 1 || opts.ListenPeerURLs[0].Host != "127.0.0.1:40003" {
		t.Errorf("embedded options = %+v", opts)
	}
	var help bytes.Buffer
	cmd.SetOut(&help)
	_ = cmd.Help()
	// envtest probes `etcd --help` for this flag before passing it.
	if !strings.Contains(help.String(), "--unsafe-no-fsync") {
		t.Errorf("--help does not list --unsafe-no-fsync:\n%s", help.String())
	}
}

// TestKubeAPIServerRefusesByName checks that a flag or value kapi does not
// implement, and whose being ignored a client could notice, is refused
// with an error naming it.
func TestKubeAPIServerRefusesByName(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--enable-admission-plugins=ImagePolicyWebhook"}, `"ImagePolicyWebhook" is not implemented`},
		{[]string{"--enable-admission-plugins=NoSuchPlugin"}, `"NoSuchPlugin" is unknown`},
		{[]string{"--disable-admission-plugins=NoSuchPlugin"}, `"NoSuchPlugin" is unknown`},
		{[]string{"--allow-privileged=false"}, "--allow-privileged=false"},
		{[]string{"--feature-gates=Foo=true"}, "--feature-gates"},
		{[]string{"--tls-cert-file=x"}, "--tls-cert-file and --tls-private-key-file"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"--cert-dir=" + t.TempDir()}, tc.args...)
			_, _, err := parseKubeAPIServer(t, args)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestKubeAPIServerDefaults checks kube-apiserver's defaults and that only
// apiserver.crt and apiserver.key are written into --cert-dir.
func TestKubeAPIServerDefaults(t *testing.T) {
	certDir := t.TempDir()
	o, logs, err := parseKubeAPIServer(t, []string{"--cert-dir=" + certDir, "--disable-admission-plugins=ServiceAccount,NamespaceLifecycle"})
	if err != nil {
		t.Fatal(err)
	}
	if logs != "" {
		t.Errorf("unexpected warnings:\n%s", logs)
	}
	c := o.Config()
	if !c.Security.AnonymousAuth || !slices.Equal(c.Security.AuthorizationModes, []string{"AlwaysAllow"}) {
		t.Errorf("anonymous %v, authorization %v; want true, [AlwaysAllow]", c.Security.AnonymousAuth, c.Security.AuthorizationModes)
	}
	if got, want := c.Security.DisableAdmissionPlugins, implementedOf("ServiceAccount", "NamespaceLifecycle", "NodeRestriction"); !slices.Equal(got, want) {
		t.Errorf("disabled admission plugins = %v, want %v", got, want)
	}
	// kube-apiserver runs no kube-controller-manager controller.
	if c.Controllers == nil || len(c.Controllers) != 0 {
		t.Errorf("controllers = %#v, want none (an empty, non-nil list)", c.Controllers)
	}
	entries, err := os.ReadDir(certDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"apiserver.crt", "apiserver.key"}) {
		t.Errorf("--cert-dir holds %v, want only apiserver.crt and apiserver.key", names)
	}
	if !strings.HasPrefix(c.DataDir, os.Getenv("TMPDIR")) || !c.DataDirIsTemporary {
		t.Errorf("data dir %s (temporary: %v) is not a temporary directory", c.DataDir, c.DataDirIsTemporary)
	}
	dataDir := t.TempDir()
	o, _, err = parseKubeAPIServer(t, []string{"--cert-dir=" + certDir, "--data-dir=" + dataDir})
	if err != nil {
		t.Fatal(err)
	}
	if c := o.Config(); c.DataDir != dataDir || c.DataDirIsTemporary {
		t.Errorf("--data-dir %s: data dir %s, temporary %v; want it, not temporary", dataDir, c.DataDir, c.DataDirIsTemporary)
	}
}

// TestKubeAPIServerKeepsGivenServingCert checks that an apiserver.crt and
// apiserver.key already in --cert-dir are served as they are.
func TestKubeAPIServerKeepsGivenServingCert(t *testing.T) {
	certDir := t.TempDir()
	certPEM, keyPEM, err := selfSignedServing([]string{"example.test"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"apiserver.crt": certPEM, "apiserver.key": keyPEM} {
		if err := os.WriteFile(filepath.Join(certDir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	o, _, err := parseKubeAPIServer(t, []string{"--cert-dir=" + certDir})
	if err != nil {
		t.Fatal(err)
	}
	if o.TLSCertFile != filepath.Join(certDir, "apiserver.crt") || o.TLSKeyFile != filepath.Join(certDir, "apiserver.key") {
		t.Errorf("serving pair = %s, %s", o.TLSCertFile, o.TLSKeyFile)
	}
	if got, _ := os.ReadFile(o.TLSCertFile); !bytes.Equal(got, certPEM) {
		t.Error("apiserver.crt was rewritten")
	}
}

func TestWriteEnvtestAssets(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "assets")
	target := filepath.Join(t.TempDir(), "kapi")
	for range 2 { // a second run replaces its own links
		if err := writeEnvtestAssets(dir, target); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"kube-apiserver", "etcd"} {
		if got, err := os.Readlink(filepath.Join(dir, name)); err != nil || got != target {
			t.Errorf("%s -> %q, %v; want -> %q", name, got, err, target)
		}
	}
	if err := os.Remove(filepath.Join(dir, "etcd")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "etcd"), []byte("real etcd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeEnvtestAssets(dir, target); err == nil || !strings.Contains(err.Error(), "not a symbolic link") {
		t.Errorf("error = %v, want a refusal to replace a regular file", err)
	}
}

// TestKubeAPIServerAcceptsKubeadmShapedArgs parses the flags of a kubeadm
// kube-apiserver static pod manifest; --proxy-client-cert-file and
// --proxy-client-key-file are given real files, as they must load.
// Ignoring the kubelet flags warns once per flag.
func TestKubeAPIServerAcceptsKubeadmShapedArgs(t *testing.T) {
	args := readArgs(t, "kubeadm-shaped-kube-apiserver.args", map[string]string{"PKI": "/etc/kubernetes/pki"})
	certFile, keyFile := writeKeyPair(t)
	args = append(args, "--proxy-client-cert-file="+certFile, "--proxy-client-key-file="+keyFile)
	o, logs, err := parseKubeAPIServer(t, args)
	if err != nil {
		t.Fatalf("kubeadm's arguments refused: %v", err)
	}
	for _, flag := range []string{"--allow-privileged", "--kubelet-client-certificate", "--kubelet-client-key", "--kubelet-preferred-address-types"} {
		if got := strings.Count(logs, "flag="+flag+"\n"); got != 1 {
			t.Errorf("%d warnings naming %s, want 1:\n%s", got, flag, logs)
		}
	}
	if got := o.Config().Security.DisableAdmissionPlugins; slices.Contains(got, "NodeRestriction") {
		t.Errorf("NodeRestriction disabled although enabled: %v", got)
	}
	if sec := o.Config().Security; sec.ProxyClientCertFile != certFile || sec.ProxyClientKeyFile != keyFile {
		t.Errorf("proxy client certificate = %q, %q; want %q, %q", sec.ProxyClientCertFile, sec.ProxyClientKeyFile, certFile, keyFile)
	}
}

// implementedOf are the named admission plugins kapi implements, in order.
func implementedOf(names ...string) []string {
	var out []string
	for _, n := range names {
		if slices.Contains(controlplane.AdmissionPlugins, n) {
			out = append(out, n)
		}
	}
	return out
}
