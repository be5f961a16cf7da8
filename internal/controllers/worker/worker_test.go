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
