package scheduler

import (
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
)

// Upstream's queue timings: a pod's backoff grows from 1 s to 10 s with
// its failed attempts, and a pod left unschedulable for 5 minutes is
// retried even if nothing in the cluster changed (checked every 30 s).
const (
	initialBackoff           = time.Second
	maxBackoff               = 10 * time.Second
	unschedulableMaxDuration = 5 * time.Minute
	flushInterval            = 30 * time.Second
)

// schedulingQueue is kube-scheduler's queue built on client-go's
// workqueue: the active queue is the workqueue, the backoff queue its
// per-pod exponential rate limiter, and unschedulable pods wait in a set
// until a cluster event (a node added or changed, a pod removed) or the
// periodic flush moves them back.
type schedulingQueue struct {
	q     workqueue.TypedRateLimitingInterface[string]
	clock clock.WithTicker

	mu sync.Mutex
	// unschedulable maps a pod key to when it was parked.
	unschedulable map[string]time.Time
	// moveCycle counts move requests: a pod whose attempt started before
	// the latest one goes back to backoff instead of being parked, so an
	// event during its attempt is not missed.
	moveCycle int64
}

func newSchedulingQueue(c clock.WithTicker) *schedulingQueue {
	rl := workqueue.NewTypedItemExponentialFailureRateLimiter[string](initialBackoff, maxBackoff)
	return &schedulingQueue{
		q: workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[string]{
			Name: "scheduler", Clock: c,
		}),
		clock:         c,
		unschedulable: map[string]time.Time{},
	}
}

// add queues a pod that is new or changed, at once.
func (sq *schedulingQueue) add(key string) {
	sq.mu.Lock()
	delete(sq.unschedulable, key)
	sq.mu.Unlock()
	sq.q.Add(key)
}

// remove forgets a pod that is gone or bound.
func (sq *schedulingQueue) remove(key string) {
	sq.mu.Lock()
	delete(sq.unschedulable, key)
	sq.mu.Unlock()
	sq.q.Forget(key)
}

// cycle is the move cycle an attempt starts in.
func (sq *schedulingQueue) cycle() int64 {
	sq.mu.Lock()
	defer sq.mu.Unlock()
	return sq.moveCycle
}

// failed parks a pod that did not fit, or backs it off when a move
// request came during its attempt.
func (sq *schedulingQueue) failed(key string, startedCycle int64) {
	sq.mu.Lock()
	moved := sq.moveCycle > startedCycle
	if !moved {
		sq.unschedulable[key] = sq.clock.Now()
	}
	sq.mu.Unlock()
	if moved {
		sq.q.AddRateLimited(key)
	}
}

// retry backs a pod off after an error (a failed binding).
func (sq *schedulingQueue) retry(key string) { sq.q.AddRateLimited(key) }

// moveAll sends every parked pod (those match selects, all when nil) to
// backoff: a cluster event may have made room for it.
func (sq *schedulingQueue) moveAll(match func(key string) bool) {
	sq.mu.Lock()
	sq.moveCycle++
	var keys []string
	for k := range sq.unschedulable {
		if match == nil || match(k) {
			keys = append(keys, k)
			delete(sq.unschedulable, k)
		}
	}
	sq.mu.Unlock()
	for _, k := range keys {
		sq.q.AddRateLimited(k)
	}
}

// flush retries pods parked for longer than unschedulableMaxDuration.
func (sq *schedulingQueue) flush() {
	now := sq.clock.Now()
	sq.mu.Lock()
	var keys []string
	for k, since := range sq.unschedulable {
		if now.Sub(since) >= unschedulableMaxDuration {
			keys = append(keys, k)
			delete(sq.unschedulable, k)
		}
	}
	sq.mu.Unlock()
	for _, k := range keys {
		sq.q.AddRateLimited(k)
	}
}

// parked tells whether a pod waits in the unschedulable set (tests).
func (sq *schedulingQueue) parked(key string) bool {
	sq.mu.Lock()
	defer sq.mu.Unlock()
	_, ok := sq.unschedulable[key]
	return ok
}
