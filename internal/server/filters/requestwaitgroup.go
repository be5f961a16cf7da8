package filters

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// ErrDraining is returned by RequestWaitGroup.Add once draining has begun.
var ErrDraining = errors.New("the server is draining requests")

// RequestWaitGroup counts the non-long-running requests in flight so that
// graceful shutdown can wait for them, refuses new ones once draining begins,
// and ends long-running requests (watches) on demand. The zero value is not
// usable; call NewRequestWaitGroup.
type RequestWaitGroup struct {
	mu       sync.Mutex
	count    int
	draining bool
	drained  chan struct{} // closed when draining and count is zero

	longRunning     context.Context
	stopLongRunning context.CancelFunc

	// closed mirrors draining for IsDraining, read on every request
	// without the lock.
	closed atomic.Bool
	// long holds the cancel functions of the long-running requests in
	// progress, for StopLongRunningPaced (see waitgroup_longrunning.go).
	long longRunningSet
}

// NewRequestWaitGroup returns an empty group.
func NewRequestWaitGroup() *RequestWaitGroup {
	ctx, cancel := context.WithCancel(context.Background())
	return &RequestWaitGroup{
		drained:         make(chan struct{}),
		longRunning:     ctx,
		stopLongRunning: cancel,
	}
}

// Add counts one more request, or returns ErrDraining once Close was called.
func (g *RequestWaitGroup) Add() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.draining {
		return ErrDraining
	}
	g.count++
	return nil
}

// Done ends a request counted by Add.
func (g *RequestWaitGroup) Done() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.count--
	if g.count < 0 {
		panic("filters: RequestWaitGroup.Done without Add")
	}
	if g.count == 0 && g.draining {
		close(g.drained)
	}
}

// Close starts draining: Add fails from now on. It is idempotent.
func (g *RequestWaitGroup) Close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.draining {
		return
	}
	g.draining = true
	g.closed.Store(true)
	if g.count == 0 {
		close(g.drained)
	}
}

// Wait blocks until draining has begun and every counted request is done,
// or ctx ends (then it returns ctx's error).
func (g *RequestWaitGroup) Wait(ctx context.Context) error {
	select {
	case <-g.drained:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// InFlight returns the number of counted requests.
func (g *RequestWaitGroup) InFlight() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.count
}

// StopLongRunning cancels the contexts of all long-running requests, now and
// later, so watches end and their connections can close.
func (g *RequestWaitGroup) StopLongRunning() {
	g.stopLongRunning()
}
