package etcdcluster

import (
	"context"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// putEventually retries a put until the cluster accepts it: right after a
// member dies, requests in flight to it fail.
func putEventually(t *testing.T, cli *clientv3.Client, key, value string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		_, err := cli.Put(ctx, key, value)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Put %s: %v", key, err)
		}
	}
}

func TestKillAndRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-member etcd cluster")
	}
	begin := time.Now()
	c := Start(t, Options{})
	t.Logf("3 members serving in %v", time.Since(begin))
	eps := c.Endpoints()
	if len(eps) != 3 {
		t.Fatalf("Endpoints = %v, want 3", eps)
	}
	for _, ep := range eps {
		if !strings.HasPrefix(ep, "http://127.0.0.1:") {
			t.Errorf("endpoint %q, want http://127.0.0.1:port", ep)
		}
	}
	if ca, cert, key := c.TLSFiles(); ca != "" || cert != "" || key != "" {
		t.Errorf("TLSFiles of a plain cluster = %q, %q, %q", ca, cert, key)
	}
	cli := c.Client(t)
	putEventually(t, cli, "/before", "1")

	c.Kill(1)
	putEventually(t, cli, "/during", "2")
	c.Restart(1)

	one, err := clientv3.New(clientv3.Config{Endpoints: eps[1:2], DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	for _, key := range []string{"/before", "/during"} {
		resp, err := one.Get(t.Context(), key)
		if err != nil {
			t.Fatalf("Get %s from the restarted member: %v", key, err)
		}
		if len(resp.Kvs) != 1 {
			t.Errorf("restarted member has no %s", key)
		}
	}
}

func TestTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd member")
	}
	c := Start(t, Options{Members: 1, TLS: true})
	ep := c.Endpoints()[0]
	if !strings.HasPrefix(ep, "https://127.0.0.1:") {
		t.Errorf("endpoint %q, want https://127.0.0.1:port", ep)
	}
	ca, cert, key := c.TLSFiles()
	if ca == "" || cert == "" || key == "" {
		t.Fatalf("TLSFiles = %q, %q, %q", ca, cert, key)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := c.Client(t).Put(ctx, "/k", "v"); err != nil {
		t.Fatalf("Put over TLS: %v", err)
	}

	// Without a client certificate the member refuses the connection.
	plain, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	short, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if _, err := plain.Get(short, "/k"); err == nil {
		t.Error("Get without TLS succeeded")
	}
}

func TestLineWatcher(t *testing.T) {
	for _, tc := range []struct {
		writes []string
		want   bool
	}{
		{[]string{"ready\n"}, true},
		{[]string{"rea", "dy\n"}, true},
		{[]string{"starting\nready\n"}, true},
		{[]string{"ready"}, false},
		{[]string{"not ready\n"}, false},
		{[]string{"already\n", "ready now\n"}, false},
	} {
		w := &lineWatcher{line: "ready", seen: make(chan struct{})}
		for _, s := range tc.writes {
			if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
				t.Fatalf("Write(%q) = %d, %v", s, n, err)
			}
		}
		got := false
		select {
		case <-w.seen:
			got = true
		default:
		}
		if got != tc.want {
			t.Errorf("after writing %q: ready seen = %v, want %v", tc.writes, got, tc.want)
		}
	}
}
