package etcd3

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kapi-dev/kapi/internal/storage/etcd3/embedded"
)

// compactionEtcd starts an etcd of the test's own: compaction and
// compactRevKey are global to an etcd, and the package's shared one serves
// other tests.
func compactionEtcd(t *testing.T) *clientv3.Client {
	t.Helper()
	srv, err := embedded.StartWithOptions(t.Context(), embedded.Options{Dir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatalf("starting etcd: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv.Client()
}

func put(t *testing.T, client *clientv3.Client, key string) int64 {
	t.Helper()
	resp, err := client.Put(t.Context(), key, "v")
	if err != nil {
		t.Fatalf("Put %s: %v", key, err)
	}
	return resp.Header.Revision
}

// compactRevVersion is compactRevKey's version: how many turns were taken.
func compactRevVersion(t *testing.T, client *clientv3.Client) int64 {
	t.Helper()
	resp, err := client.Get(t.Context(), compactRevKey)
	if err != nil {
		t.Fatalf("Get %s: %v", compactRevKey, err)
	}
	if len(resp.Kvs) == 0 {
		return 0
	}
	return resp.Kvs[0].Version
}

// compactedAt reports whether reading key at rev fails as compacted.
func compactedAt(t *testing.T, client *clientv3.Client, key string, rev int64) bool {
	t.Helper()
	_, err := client.Get(t.Context(), key, clientv3.WithRev(rev))
	if err != nil && !errors.Is(err, rpctypes.ErrCompacted) {
		t.Fatalf("Get %s at %d: %v", key, rev, err)
	}
	return err != nil
}

// TestCompactorsTakeTurns drives two compactors' turns by hand: one
// compacts per round, the other only follows, and takes over when the
// first stops.
func TestCompactorsTakeTurns(t *testing.T) {
	client := compactionEtcd(t)
	discard := slog.New(slog.DiscardHandler)
	a := &compactor{client: client, logger: discard}
	b := &compactor{client: client, logger: discard}
	oldest := put(t, client, "/k")

	steps := []struct {
		name        string
		c           *compactor
		compacts    bool
		wantVersion int64
	}{
		{"a's first turn records a revision", a, false, 1},
		{"b follows", b, false, 1},
		{"a compacts", a, true, 2},
		{"b follows", b, false, 2},
		{"a stopped: b takes over", b, true, 3},
		{"a follows", a, false, 3},
		{"b compacts", b, true, 4},
		{"a follows", a, false, 4},
		{"a takes over again", a, true, 5},
	}
	var lastCompacted int64
	for i, step := range steps {
		put(t, client, "/k") // history to compact
		want := step.c.rev   // what a winning turn compacts to
		got, err := step.c.turn(t.Context())
		if err != nil {
			t.Fatalf("step %d (%s): %v", i, step.name, err)
		}
		if !step.compacts {
			want = 0
		}
		if got != want {
			t.Errorf("step %d (%s): compacted to %d, want %d", i, step.name, got, want)
		}
		if v := compactRevVersion(t, client); v != step.wantVersion {
			t.Errorf("step %d (%s): %s version %d, want %d", i, step.name, compactRevKey, v, step.wantVersion)
		}
		if got == 0 {
			continue
		}
		if got <= lastCompacted {
			t.Errorf("step %d (%s): compacted to %d after %d", i, step.name, got, lastCompacted)
		}
		lastCompacted = got
		if !compactedAt(t, client, "/k", got-1) || compactedAt(t, client, "/k", got) {
			t.Errorf("step %d (%s): history is not compacted to exactly %d", i, step.name, got)
		}
	}
	if !compactedAt(t, client, "/k", oldest) {
		t.Errorf("revision %d is still readable", oldest)
	}
}

// TestStartCompactor runs two compactors on one etcd with a short interval
// until history from before they started is gone, and checks from
// compactRevKey's history that each turn compacted a later revision than
// the one before: no revision was compacted twice.
func TestStartCompactor(t *testing.T) {
	client := compactionEtcd(t)
	old := put(t, client, "/k")
	// A watch from now on is in sync from its creation; one from a past
	// revision catches up in the background and is cancelled if a
	// compaction overtakes it.
	watch := client.Watch(t.Context(), compactRevKey, clientv3.WithCreatedNotify())
	if resp := <-watch; !resp.Created {
		t.Fatalf("watch on %s: %v", compactRevKey, resp.Err())
	}

	const interval = 20 * time.Millisecond
	stopA := StartCompactor(t.Context(), client, interval, nil)
	ctxB, cancelB := context.WithCancel(t.Context())
	stopB := StartCompactor(ctxB, client, interval, nil)
	deadline := time.Now().Add(30 * time.Second)
	for !compactedAt(t, client, "/k", old) {
		if time.Now().After(deadline) {
			t.Fatalf("revision %d still readable after %v", old, 30*time.Second)
		}
		put(t, client, "/k")
		time.Sleep(interval / 4) // polling; nothing to wait on
	}
	stopA()
	stopA()
	cancelB() // a cancelled context stops a compactor too; stop still waits
	stopB()
	turns := compactRevVersion(t, client)

	var prev int64 = -1
	for seen := int64(0); seen < turns; {
		resp, ok := <-watch
		if !ok || resp.Canceled {
			t.Fatalf("watch on %s ended: %v (compact revision %d)", compactRevKey, resp.Err(), resp.CompactRevision)
		}
		for _, ev := range resp.Events {
			if ev.Type != mvccpb.PUT {
				t.Fatalf("unexpected %v of %s", ev.Type, compactRevKey)
			}
			seen++
			rev, err := strconv.ParseInt(string(ev.Kv.Value), 10, 64)
			if err != nil {
				t.Fatalf("%s = %q: %v", compactRevKey, ev.Kv.Value, err)
			}
			if ev.Kv.Version != seen || rev <= prev {
				t.Errorf("turn %d: version %d, compacted to %d after %d", seen, ev.Kv.Version, rev, prev)
			}
			prev = rev
		}
	}
	if turns < 2 {
		t.Errorf("%d turns, want at least 2 to have compacted", turns)
	}
}

func TestStartCompactorDisabled(t *testing.T) {
	// With no interval the client is never used.
	StartCompactor(t.Context(), nil, 0, nil)()
}
