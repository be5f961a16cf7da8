package controllers

import (
	"context"
	"sync"
	"time"
)

// queue is a first-in first-out set of CRD names waiting for one worker. A
// name queued twice before the worker gets to it is synced once; the worker
// always reads the CRD fresh, so nothing is lost by merging. The order is
// kept so that, of two CRDs asking for one name, the one seen first wins.
type queue struct {
	mu      sync.Mutex
	order   []string
	pending map[string]bool
	wake    chan struct{}
}

func newQueue() *queue {
	return &queue{pending: map[string]bool{}, wake: make(chan struct{}, 1)}
}

func (q *queue) add(name string) {
	q.mu.Lock()
	if !q.pending[name] {
		q.pending[name] = true
		q.order = append(q.order, name)
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// addAfter queues name again after d unless ctx ends first. The timer
// holds no goroutine while it waits.
func (q *queue) addAfter(ctx context.Context, name string, d time.Duration) {
	time.AfterFunc(d, func() {
		if ctx.Err() == nil {
			q.add(name)
		}
	})
}

// run calls sync for queued names until ctx ends; a failed name is queued
// again after retry.
func (q *queue) run(ctx context.Context, retry time.Duration, sync func(context.Context, string) error, onErr func(string, error)) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.wake:
		}
		q.mu.Lock()
		names := q.order
		q.order = nil
		clear(q.pending)
		q.mu.Unlock()
		for _, name := range names {
			if ctx.Err() != nil {
				return
			}
			if err := sync(ctx, name); err != nil && ctx.Err() == nil {
				onErr(name, err)
				q.addAfter(ctx, name, retry)
			}
		}
	}
}
