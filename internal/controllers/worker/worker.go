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

// Run starts n workers calling sync for each key until ctx ends, then
// shuts the queue down and waits for them.
func Run[T comparable](ctx context.Context, q workqueue.TypedRateLimitingInterface[T], n int, logger *slog.Logger, syncFn func(context.Context, T) error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for processNext(ctx, q, logger, syncFn) {
			}
		})
	}
	<-ctx.Done()
	q.ShutDown()
	wg.Wait()
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

func processNext[T comparable](ctx context.Context, q workqueue.TypedRateLimitingInterface[T], logger *slog.Logger, syncFn func(context.Context, T) error) bool {
	key, quit := q.Get()
	if quit {
		return false
	}
	defer q.Done(key)
	if err := syncFn(ctx, key); err != nil {
		if ctx.Err() == nil {
			logger.Info("sync failed, retrying", "key", key, "err", err)
		}
		q.AddRateLimited(key)
		return true
	}
	q.Forget(key)
	return true
}
