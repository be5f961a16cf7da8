package cli

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kapi-dev/kapi/internal/bench/result"
)

func TestBenchFlagValidation(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"unknown workload", []string{"get", "nope"}, `unknown workload "nope"`},
		{"bad output", []string{"--output", "yaml"}, `--output "yaml"`},
		{"zero objects", []string{"--objects", "0"}, "--objects must be positive"},
		{"zero rate", []string{"watch", "--rate", "0"}, "--rate must be positive"},
		{"no qps", []string{"--qps", "0"}, "--qps"},
		{"bad duration", []string{"--duration", "soon"}, "invalid argument"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := NewKapiCommand()
			var out bytes.Buffer
			cmd.SetOut(&out)
			cmd.SetErr(&out)
			cmd.SetArgs(append([]string{"bench"}, c.args...))
			err := cmd.Execute()
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("kapi bench %v: error %v, want one containing %q", c.args, err, c.wantErr)
			}
			if out.Len() != 0 && !strings.Contains(c.wantErr, "invalid argument") {
				t.Errorf("bad input printed more than the error:\n%s", out.String())
			}
		})
	}
}

func TestBenchUnreachableServer(t *testing.T) {
	// A port nothing listens on: bind one, note it, close it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	config := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \"https://" + addr + "\", insecure-skip-tls-verify: true}}]\n" +
		"users: [{name: u, user: {token: x}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n"
	if err := os.WriteFile(kubeconfig, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := NewKapiCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"bench", "--kubeconfig", kubeconfig, "get"})
	err = cmd.Execute()
	want := "kapi bench: server https://" + addr + ": connection refused"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	if out.Len() != 0 {
		t.Errorf("printed %q besides the error", out.String())
	}
}

func TestReachError(t *testing.T) {
	refused := &url.Error{Op: "Get", URL: "https://x/version", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"refused", refused, "connection refused"},
		{"dns", &url.Error{Op: "Get", URL: "https://nohost/version", Err: &net.OpError{Op: "dial", Err: errors.New("lookup nohost: no such host")}}, "lookup nohost: no such host"},
		{"timeout", &url.Error{Op: "Get", URL: "https://x", Err: context.DeadlineExceeded}, "no answer within 10s"},
		{"not a url error", errors.New("the server has asked for the client to provide credentials"), "the server has asked for the client to provide credentials"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := reachError(c.err); got != c.want {
				t.Errorf("reachError = %q, want %q", got, c.want)
			}
		})
	}
}

func TestAppendResults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.json")
	if err := appendResults(path, []result.Phase{{Workload: "get", Phase: "get", Ops: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := appendResults(path, []result.Phase{{Workload: "list", Phase: "list/json", Ops: 2}}); err != nil {
		t.Fatal(err)
	}
	f, err := result.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range f.Phases {
		got = append(got, p.Phase)
	}
	if strings.Join(got, ",") != "get,list/json" || f.Machine.CPUs == 0 || f.Date.IsZero() {
		t.Errorf("results file: phases %v, machine %+v, date %v", got, f.Machine, f.Date)
	}
}
