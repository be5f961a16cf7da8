package framework

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if os.Getenv(envFakeKapi) == "1" {
		os.Exit(fakeKapi(os.Args[1:]))
	}
	os.Exit(runWithKubectl(m))
}

// runWithKubectl builds kubectl once for every test here. kapi itself is
// replaced by the fake, so Main (which builds it too) is not used.
func runWithKubectl(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kapi-framework-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	kubectl, err := BuildKubectl(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.Setenv(EnvKubectlBin, kubectl); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// useFakeKapi makes StartKapi run this test binary as kapi.
func useFakeKapi(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvKapiBin, self)
	t.Setenv(envFakeKapi, "1")
}

// kubectlBin returns the kubectl TestMain built.
func kubectlBin(t *testing.T) string {
	p, err := BuildKubectl(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFreePort(t *testing.T) {
	port := FreePort(t)
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatalf("port %d from FreePort is not free: %v", port, err)
	}
	_ = l.Close()
}

func TestSamePort(t *testing.T) {
	tests := []struct {
		host, want string
		ok         bool
	}{
		{host: "https://127.0.0.1:6443", want: "https://127.0.0.1:6443", ok: true},
		{host: "https://localhost:6443", want: "https://127.0.0.1:6443", ok: true},
		{host: "https://127.0.0.1:6444", want: "https://127.0.0.1:6443"},
		{host: "https://127.0.0.1", want: "https://127.0.0.1:6443"},
	}
	for _, tt := range tests {
		if err := samePort(tt.host, tt.want); (err == nil) != tt.ok {
			t.Errorf("samePort(%q, %q) = %v, want ok %v", tt.host, tt.want, err, tt.ok)
		}
	}
}

func TestSyncBufferNotifies(t *testing.T) {
	var b syncBuffer
	before, changed := b.snapshot()
	if _, err := b.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	default:
		t.Fatal("write did not signal the waiter")
	}
	if after := b.String(); before != "" || after != "hello" {
		t.Errorf("snapshots %q then %q, want \"\" then \"hello\"", before, after)
	}
}

func TestKubectlClient(t *testing.T) {
	kubectl := kubectlBin(t)
	tests := []struct {
		args       []string
		wantStdout string
		wantStderr string
	}{
		{args: []string{"version", "--client"}, wantStdout: "Client Version: v1.37.2"},
		{args: []string{"version", "--client", "--no-such-flag"}, wantStderr: "unknown flag: --no-such-flag"},
	}
	for _, tt := range tests {
		stdout, stderr, err := RunKubectl(t, kubectl, "", tt.args...)
		if tt.wantStderr != "" {
			var kerr *KubectlError
			if !errors.As(err, &kerr) || !strings.Contains(kerr.Stderr, tt.wantStderr) || !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("kubectl %v: err = %v, want a KubectlError with %q", tt.args, err, tt.wantStderr)
			}
			continue
		}
		if err != nil || !strings.Contains(stdout, tt.wantStdout) {
			t.Errorf("kubectl %v = %q, %v; want %q", tt.args, stdout, err, tt.wantStdout)
		}
	}
}

func TestStartKapiRestart(t *testing.T) {
	useFakeKapi(t)
	dir := t.TempDir()
	k := StartKapi(t, WithDataDir(dir), WithStorageBackend("memory"))
	if k.DataDir() != dir || k.Kubeconfig() != filepath.Join(dir, KubeconfigName) {
		t.Errorf("DataDir, Kubeconfig = %s, %s", k.DataDir(), k.Kubeconfig())
	}
	if !strings.Contains(k.Output(), "kapi is ready") {
		t.Errorf("Output() = %q, want the ready line", k.Output())
	}
	assertServes(t, k)
	caBefore, err := os.ReadFile(filepath.Join(dir, "pki", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Stop(); err != nil {
		t.Fatalf("Stop() = %v\n%s", err, k.Output())
	}
	if err := k.Stop(); err != nil {
		t.Errorf("second Stop() = %v, want the first result", err)
	}

	k2 := StartKapi(t, WithDataDir(dir))
	assertServes(t, k2)
	caAfter, err := os.ReadFile(filepath.Join(dir, "pki", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	if string(caBefore) != string(caAfter) {
		t.Error("the CA changed across a restart")
	}
}

// assertServes checks every client the framework hands out reaches k.
func assertServes(t *testing.T, k *Kapi) {
	t.Helper()
	if got := k.RESTConfig().Host; got != k.URL() {
		t.Errorf("RESTConfig().Host = %q, want %q", got, k.URL())
	}
	body, err := k.Clientset().Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(context.Background())
	if err != nil || string(body) != "ok" {
		t.Errorf("client-go GET /readyz = %q, %v", body, err)
	}
	if out, err := k.Kubectl(t, "get", "--raw", "/readyz"); err != nil || out != "ok" {
		t.Errorf("kubectl get --raw /readyz = %q, %v", out, err)
	}
	if out, err := k.KubectlStdin(t, "ignored", "get", "--raw", "/readyz"); err != nil || out != "ok" {
		t.Errorf("KubectlStdin get --raw /readyz = %q, %v", out, err)
	}
}

func TestStartKapiExitsEarly(t *testing.T) {
	useFakeKapi(t)
	_, err := startKapi(t, WithArgs("--fail"))
	if err == nil {
		t.Fatal("startKapi succeeded with a server that exits")
	}
	for _, want := range []string{"exited before it was ready", "exit status 3", "failing as asked"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestKubectlBackground(t *testing.T) {
	k := &Kapi{bins: Binaries{Kubectl: kubectlBin(t)}, kubeconfig: filepath.Join(t.TempDir(), "none"), cacheDir: t.TempDir()}
	b := k.KubectlBackground(t, "version", "--client")
	if !b.WaitFor("Client Version", time.Minute) {
		t.Errorf("WaitFor did not see the version:\n%s", b.Output())
	}
	if b.WaitFor("never printed", time.Minute) {
		t.Error("WaitFor reported text kubectl never printed")
	}
	if err := b.Stop(); err != nil {
		t.Errorf("Stop() after a clean exit = %v", err)
	}
}
