package worker

import (
	"context"
	"errors"
	"sync"
	"testing"

	"k8s.io/client-go/tools/cache"
)

// TestRunRetriesUntilSuccess: a failing key comes back (with the queue's
// backoff) until its sync succeeds, and Run returns once ctx ends.
func TestRunRetriesUntilSuccess(t *testing.T) {
	q := NewQueue("test")
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	calls := 0
	done := make(chan struct{})
	q.Add("k")
	go func() {
		defer close(done)
		Run(ctx, q, 2, nil, func(_ context.Context, key string) error {
			mu.Lock()
			defer mu.Unlock()
			calls++
			if calls < 3 {
				return errors.New("not yet")
			}
			cancel()
			return nil
		})
	}()
	<-done
	if calls != 3 {
		t.Errorf("sync called %d times, want 3", calls)
	}
	if !q.ShuttingDown() {
		t.Error("the queue was not shut down")
	}
}

// TestRunSyncedStopsBeforeSync: when ctx ends before the caches sync, no
// key is synced and the queue is shut down.
func TestRunSyncedStopsBeforeSync(t *testing.T) {
	q := NewQueue("test")
	q.Add("k")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	never := func() bool { return false }
	RunSynced(ctx, q, 1, nil, []cache.InformerSynced{never}, func(context.Context, string) error {
		t.Error("sync ran before the caches synced")
		return nil
	})
	if !q.ShuttingDown() {
		t.Error("queue not shut down")
	}
}

// TestRunBoundsWorkers: with n workers busy, no further key leaves the
// queue, and every key is synced once the workers are free.
func TestRunBoundsWorkers(t *testing.T) {
	const n, keys = 3, 10
	q := NewQueue("test")
	for i := range keys {
		q.Add(string(rune('a' + i)))
	}
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan string, keys)
	release := make(chan struct{})
	var mu sync.Mutex
	busy, maxBusy, synced := 0, 0, 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, q, n, nil, func(_ context.Context, key string) error {
			mu.Lock()
			busy++
			maxBusy = max(maxBusy, busy)
			mu.Unlock()
			started <- key
			<-release
			mu.Lock()
			busy--
			synced++
			if synced == keys {
				cancel()
			}
			mu.Unlock()
			return nil
		})
	}()
	for range n {
		<-started
	}
	// All n workers hold a key; the rest must still be queued.
	if got := q.Len(); got != keys-n {
		t.Errorf("queue holds %d keys with %d workers busy, want %d", got, n, keys-n)
	}
	close(release)
	<-done
	if synced != keys || maxBusy != n {
		t.Errorf("synced %d keys with at most %d at once, want %d with at most %d", synced, maxBusy, keys, n)
	}
}

// TestRunShutsTheQueueDown: when ctx ends, Run returns with its queue
// shut down and the work under way done.
func TestRunShutsTheQueueDown(t *testing.T) {
	q := NewQueue("test")
	ctx, cancel := context.WithCancel(context.Background())
	started, release := make(chan struct{}), make(chan struct{})
	finished := false
	q.Add("k")
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, q, 1, nil, func(context.Context, string) error {
			close(started)
			<-release
			finished = true
			return nil
		})
	}()
	<-started
	cancel()
	close(release)
	<-done
	if !q.ShuttingDown() {
		t.Error("queue not shut down when Run returned")
	}
	if !finished {
		t.Error("Run returned before the work under way was done")
	}
}
