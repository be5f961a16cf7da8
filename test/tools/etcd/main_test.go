package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

func TestParseFlags(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		wantErr  string
		progress time.Duration
	}{
		{name: "defaults", args: nil},
		{name: "bad URL scheme", args: []string{"--listen-client-urls=unix:///x"}, wantErr: "scheme"},
		{name: "URL with a path", args: []string{"--listen-peer-urls=http://127.0.0.1:1/x"}, wantErr: "scheme://host:port"},
		{name: "cert without key", args: []string{"--cert-file=c"}, wantErr: "--cert-file and --key-file"},
		{name: "client auth without CA", args: []string{"--cert-file=c", "--key-file=k", "--client-cert-auth"}, wantErr: "--trusted-ca-file"},
		{name: "bad log level", args: []string{"--log-level=loud"}, wantErr: "--log-level"},
		{name: "stray argument", args: []string{"serve"}, wantErr: "unexpected"},
		{name: "old progress flag", args: []string{"--experimental-watch-progress-notify-interval=5s"}, progress: 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := parseFlags(tc.args, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("parseFlags(%q) error %v, want one with %q", tc.args, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseFlags(%q): %v", tc.args, err)
			}
			if tc.progress != 0 && cfg.WatchProgressNotifyInterval != tc.progress {
				t.Errorf("progress notify interval %v, want %v", cfg.WatchProgressNotifyInterval, tc.progress)
			}
			if cfg.AutoCompactionRetention != "0" {
				t.Errorf("auto-compaction retention %q, want disabled", cfg.AutoCompactionRetention)
			}
		})
	}
}

func TestParseFlagsCluster(t *testing.T) {
	cfg, err := parseFlags([]string{
		"--name=m1", "--data-dir=/d",
		"--listen-client-urls=https://127.0.0.1:1,https://127.0.0.1:2",
		"--advertise-client-urls=https://127.0.0.1:1",
		"--listen-peer-urls=http://127.0.0.1:3", "--initial-advertise-peer-urls=http://127.0.0.1:3",
		"--initial-cluster=m0=http://127.0.0.1:4,m1=http://127.0.0.1:3",
		"--initial-cluster-state=existing", "--initial-cluster-token=t",
		"--cert-file=c", "--key-file=k", "--trusted-ca-file=ca", "--client-cert-auth",
		"--unsafe-no-fsync", "--watch-progress-notify-interval=2s",
		"--heartbeat-interval=50", "--election-timeout=500",
	}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{
		cfg.Name, cfg.Dir, urlList{&cfg.ListenClientUrls}.String(), urlList{&cfg.AdvertiseClientUrls}.String(),
		urlList{&cfg.ListenPeerUrls}.String(), urlList{&cfg.AdvertisePeerUrls}.String(),
		cfg.InitialCluster, cfg.ClusterState, cfg.InitialClusterToken,
		cfg.ClientTLSInfo.CertFile, cfg.ClientTLSInfo.KeyFile, cfg.ClientTLSInfo.TrustedCAFile,
		strconv.FormatBool(cfg.ClientTLSInfo.ClientCertAuth), strconv.FormatBool(cfg.UnsafeNoFsync),
		cfg.WatchProgressNotifyInterval.String(), strconv.Itoa(int(cfg.TickMs)), strconv.Itoa(int(cfg.ElectionMs)),
	}
	want := []string{
		"m1", "/d", "https://127.0.0.1:1,https://127.0.0.1:2", "https://127.0.0.1:1",
		"http://127.0.0.1:3", "http://127.0.0.1:3",
		"m0=http://127.0.0.1:4,m1=http://127.0.0.1:3", "existing", "t",
		"c", "k", "ca", "true", "true", "2s", "50", "500",
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// TestServe runs a one-member etcd in-process: it prints the ready line
// once it serves, and returns nil when its context ends.
func TestServe(t *testing.T) {
	client, peer := "http://127.0.0.1:"+freePort(t), "http://127.0.0.1:"+freePort(t)
	cfg, err := parseFlags([]string{
		"--name=solo", "--data-dir=" + filepath.Join(t.TempDir(), "data"),
		"--listen-client-urls=" + client, "--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=solo=" + peer, "--unsafe-no-fsync",
	}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stdout, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, cfg, w)
		w.Close()
	}()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != readyLine {
		t.Fatalf("first line %q (%v), want %q; serve: %v", lines.Text(), lines.Err(), readyLine, <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()

	c, err := clientv3.New(clientv3.Config{Endpoints: []string{client}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reqCtx, reqCancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer reqCancel()
	if _, err := c.Put(reqCtx, "k", "v"); err != nil {
		t.Fatalf("Put: %v", err)
	}

	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve after its context ended: %v", err)
	}
}
