// Package worker runs the workers of a kube-controller-manager style
// controller: keys from a client-go rate-limited workqueue, each handed to
// a sync function, retried with the queue's backoff when it fails.
package worker

import (
	"context"
	"log/slog"
	"sync"

	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// NewQueue is the queue every controller uses: client-go's default
// controller rate limiter (per-item exponential backoff and an overall
// bucket), named for its metrics.
func NewQueue(name string) workqueue.TypedRateLimitingInterface[string] {
	return NewTypedQueue[string](name)
}

// NewTypedQueue is NewQueue for keys of any comparable type.
func NewTypedQueue[T comparable](name string) workqueue.TypedRateLimitingInterface[T] {
	return workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.DefaultTypedControllerRateLimiter[T](),
		workqueue.TypedRateLimitingQueueConfig[T]{Name: name},
	)
}

// Run processes keys with up to n workers at once until ctx ends, then
// shuts the queue down and waits for them.
func Run[T comparable](ctx context.Context, q workqueue.TypedRateLimitingInterface[T], n int, logger *slog.Logger, syncFn func(context.Context, T) error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	// The queue shuts down when ctx ends (AfterFunc holds no goroutine
	// until then), which ends Elastic once the work under way is done.
	stop := context.AfterFunc(ctx, q.ShutDown)
	defer stop()
	Elastic(n, q.Get, func(key T) { process(ctx, q, logger, syncFn, key) })
	// Someone else may have shut the queue down: Run still returns only
	// once ctx ended, as it always has, and with the queue's shutdown
	// complete (ShutDown again waits for the call under way).
	<-ctx.Done()
	q.ShutDown()
}

// Elastic is n workers, each looping "take an item with get, work it",
// until get reports quit; it returns when the last work is done.
//
// A worker is a goroutine started for the item it takes and gone when it
// is done: an idle controller holds one goroutine waiting on its queue
// rather than n (a server runs some 30 controllers, most of them idle).
// At most n items are out of the queue at a time, as with n long-lived
// workers: a slot is taken before the next get, so an item never waits
// outside the queue for a worker.
func Elastic[T any](n int, get func() (T, bool), work func(T)) {
	slots := make(chan struct{}, max(n, 1))
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		slots <- struct{}{}
		item, quit := get()
		if quit {
			return
		}
		wg.Go(func() {
			defer func() { <-slots }()
			work(item)
		})
	}
}

// RunSynced waits for the informer caches, then is Run; if ctx ends
// first it only shuts the queue down.
func RunSynced[T comparable](ctx context.Context, q workqueue.TypedRateLimitingInterface[T], n int, logger *slog.Logger, synced []cache.InformerSynced, syncFn func(context.Context, T) error) {
	defer q.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return
	}
	Run(ctx, q, n, logger, syncFn)
}

// process syncs one key taken from q: forgotten when it succeeds, added
// back with the queue's backoff when it fails.
func process[T comparable](ctx context.Context, q workqueue.TypedRateLimitingInterface[T], logger *slog.Logger, syncFn func(context.Context, T) error, key T) {
	defer q.Done(key)
	if err := syncFn(ctx, key); err != nil {
		if ctx.Err() == nil {
			logger.Info("sync failed, retrying", "key", key, "err", err)
		}
		q.AddRateLimited(key)
		return
	}
	q.Forget(key)
}
