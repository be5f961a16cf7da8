package e2e

import (
	"bytes"
	"context"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/bench/result"
	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// tinyBench are `kapi bench` sizes small enough for a shared test machine.
var tinyBench = []string{"--objects=20", "--workers=4", "--watchers=3", "--rate=20", "--duration=1s", "--list-repeats=2"}

// runBench runs the built `kapi bench` and returns stdout, stderr and how
// it exited.
func runBench(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(framework.RequireBinaries(t).Kapi, append([]string{"bench"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// waitNamespaceGone waits until the namespace is deleted, or fails.
func waitNamespaceGone(t *testing.T, k *framework.Kapi, name string) {
	t.Helper()
	cs := k.Clientset()
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := cs.CoreV1().Namespaces().Get(context.Background(), name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("namespace %q still there a minute after the bench ended (get: %v)", name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestBenchAllWorkloads runs every workload against kapi and checks that
// each phase measured something, that the watch lost nothing, that the
// server's process was sampled and that the namespace is gone after.
func TestBenchAllWorkloads(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	args := append([]string{"--kubeconfig=" + k.Kubeconfig(), "--output=json", "--pid=" + strconv.Itoa(k.PID()),
		"--namespace=bench-e2e", "--server=kapi", "--backend=memory"}, tinyBench...)
	stdout, stderr, err := runBench(t, args...)
	if err != nil {
		t.Fatalf("kapi bench: %v\nstderr:\n%s", err, stderr)
	}
	phases, err := result.ReadPhases(strings.NewReader(stdout))
	if err != nil {
		t.Fatalf("stdout is not JSON phases: %v\n%s", err, stdout)
	}
	want := []string{"create", "get", "update", "list/json", "list/protobuf", "list/rv0", "list/paged",
		"watch", "mixed/update", "mixed/get", "mixed/list", "delete"}
	var got []string
	for _, p := range phases {
		got = append(got, p.Phase)
		if p.Ops <= 0 || p.ServerProcess == nil || p.ServerProcess.PID != k.PID() || p.Server != "kapi" || p.Backend != "memory" {
			t.Errorf("phase %s: ops %d, server process %+v, labels %q/%q", p.Phase, p.Ops, p.ServerProcess, p.Server, p.Backend)
		}
		if len(p.Errors) > 0 {
			t.Errorf("phase %s: errors %v", p.Phase, p.Errors)
		}
		if strings.HasPrefix(p.Phase, "list/") && p.Bytes <= 0 {
			t.Errorf("phase %s read no bytes", p.Phase)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("phases %v, want %v", got, want)
	}
	for _, p := range phases {
		if p.Phase == "watch" && (p.Lost == nil || *p.Lost != 0 || p.Latency == nil || p.Latency.Count != p.Ops*3) {
			t.Errorf("watch: lost %v, latency %+v for %d writes to 3 watchers", p.Lost, p.Latency, p.Ops)
		}
	}
	waitNamespaceGone(t, k, "bench-e2e")
}

// TestBenchBadInput checks that a server the tool cannot use is one clear
// error line and a non-zero exit.
func TestBenchBadInput(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"),
		framework.WithArgs("--authorization-mode=RBAC", "--token-auth-file="+writeTestFile(t, "tokens.csv", []byte("tok-nobody,nobody,uid-nobody\n"))))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	_ = ln.Close()
	unreachable := writeTestFile(t, "closed.kubeconfig", []byte("apiVersion: v1\nkind: Config\n"+
		"clusters: [{name: c, cluster: {server: \"https://"+closed+"\", insecure-skip-tls-verify: true}}]\n"+
		"users: [{name: u, user: {token: x}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n"))

	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"unreachable server", []string{"--kubeconfig=" + unreachable}, []string{"kapi bench: server https://" + closed + ": connection refused"}},
		{"no permission", []string{"--kubeconfig=" + tokenKubeconfig(t, k, "tok-nobody"), "--namespace=not-mine"},
			[]string{`kapi bench: cannot read namespace "not-mine"`, "forbidden", `User "nobody"`}},
		{"no permission to create its namespace", []string{"--kubeconfig=" + tokenKubeconfig(t, k, "tok-nobody")},
			[]string{`kapi bench: cannot create namespace "kapi-bench-`, "forbidden", `User "nobody"`}},
		{"unknown workload", []string{"--kubeconfig=" + k.Kubeconfig(), "startover"}, []string{`unknown workload "startover"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, err := runBench(t, append(c.args, tinyBench...)...)
			if err == nil {
				t.Fatalf("kapi bench %v succeeded, want a failure", c.args)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if len(lines) != 1 || stdout != "" {
				t.Errorf("want one error line and no output; stderr:\n%s\nstdout:\n%s", stderr, stdout)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
}

// TestBenchInterruptCleansUp interrupts a run in the middle of its create
// phase and checks that the namespace it made is deleted.
func TestBenchInterruptCleansUp(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	cmd := exec.Command(framework.RequireBinaries(t).Kapi, "bench", "--kubeconfig="+k.Kubeconfig(),
		"--namespace=bench-sigint", "--objects=100000", "--workers=1", "create")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	// Interrupt once objects are being created.
	cs := k.Clientset()
	for deadline := time.Now().Add(time.Minute); ; {
		list, err := cs.CoreV1().ConfigMaps("bench-sigint").List(context.Background(), metav1.ListOptions{Limit: 1})
		if err == nil && len(list.Items) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no object created a minute after the start; stderr:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Error("an interrupted bench exited 0")
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr %q does not say it was interrupted", stderr.String())
	}
	waitNamespaceGone(t, k, "bench-sigint")
}
