package embedded

import (
	"context"
	"fmt"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

func start(t *testing.T, dir string) *Server {
	t.Helper()
	begin := time.Now()
	s, err := StartWithOptions(t.Context(), Options{Dir: dir})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("embedded etcd ready in %v", time.Since(begin))
	return s
}

func TestDataSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	s := start(t, dir)
	ctx := t.Context()
	put, err := s.Client().Put(ctx, "/registry/test", "v")
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}

	s = start(t, dir)
	t.Cleanup(func() { _ = s.Close() })
	got, err := s.Client().Get(ctx, "/registry/test")
	if err != nil {
		t.Fatalf("Get after restart: %v", err)
	}
	if len(got.Kvs) != 1 || string(got.Kvs[0].Value) != "v" || got.Kvs[0].ModRevision != put.Header.Revision {
		t.Fatalf("after restart got %v, want v at revision %d", got.Kvs, put.Header.Revision)
	}
}

func TestEndpointsServeClients(t *testing.T) {
	s := start(t, t.TempDir())
	t.Cleanup(func() { _ = s.Close() })
	c, err := clientv3.New(clientv3.Config{Endpoints: s.Endpoints(), DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	st, err := c.Status(ctx, s.Endpoints()[0])
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	if st.Header.Revision < 1 {
		t.Errorf("status revision %d", st.Header.Revision)
	}
}

func TestStartRequiresDir(t *testing.T) {
	if _, err := Start(t.Context(), "", nil); err == nil {
		t.Error("Start without a directory succeeded")
	}
}

func BenchmarkStart(b *testing.B) {
	for b.Loop() {
		s, err := Start(context.Background(), b.TempDir(), nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// Launch returns before etcd serves; once WaitReady returned nil the
// client works, and WaitReady keeps answering.
func TestLaunchThenWaitReady(t *testing.T) {
	s, err := Launch(t.Context(), Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 2 {
		if err := s.WaitReady(t.Context()); err != nil {
			t.Fatalf("WaitReady: %v", err)
		}
	}
	if _, err := s.Client().Put(t.Context(), "/registry/launched", "v"); err != nil {
		t.Fatalf("Put after WaitReady: %v", err)
	}
}

// A server closed before it served reports that to its waiters instead
// of leaving them waiting.
func TestWaitReadyAfterClose(t *testing.T) {
	s, err := Launch(context.Background(), Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.WaitReady(ctx) }()
	select {
	case <-done: // nil if it served before Close, an error otherwise
	case <-ctx.Done():
		t.Fatal("WaitReady did not return after Close")
	}
}

// TestElectsItselfAtOnce: with ticks of 9 s the election timeout cannot
// fire within 8 s, so only the new member's own campaign can make it
// serve in time. Without campaignNow the start waits 9 to 45 s.
func TestElectsItselfAtOnce(t *testing.T) {
	saved := electionTiming
	electionTiming.tickMs, electionTiming.electionMs = 9_000, 45_000
	t.Cleanup(func() { electionTiming = saved })
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Second)
	defer cancel()
	begin := time.Now()
	s, err := StartWithOptions(ctx, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	t.Logf("ready in %v", time.Since(begin))
	if _, err := s.Client().Put(t.Context(), "/registry/k", "v"); err != nil {
		t.Errorf("Put: %v", err)
	}
}

// TestIsFresh: a directory is fresh until a member has started in it.
func TestIsFresh(t *testing.T) {
	dir := t.TempDir()
	if !isFresh(dir) {
		t.Fatal("an empty directory is not fresh")
	}
	s := start(t, dir)
	if isFresh(dir) {
		t.Error("a running member's directory is fresh")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if isFresh(dir) {
		t.Error("a stopped member's directory is fresh: its restart would be cued to campaign")
	}
}

// TestRestartsWithData: a member restarted on data whose raft log starts
// at a snapshot serves again. Raft scans the log from its applied index
// when asked to campaign, and panics if that part of the log is gone; a
// campaign asked for before the restarted member has taken its snapshot
// did that (etcd rebuilds a raft snapshot from its backend on every
// start).
func TestRestartsWithData(t *testing.T) {
	dir := t.TempDir()
	for run := range 8 {
		s := start(t, dir)
		for i := range 40 {
			if _, err := s.Client().Put(t.Context(), fmt.Sprintf("/registry/k%d-%d", run, i), "v"); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
