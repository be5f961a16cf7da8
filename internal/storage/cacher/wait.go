package cacher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/internal/storage"
)

const (
	// waitTimeout bounds how long a request waits for the cache to reach a
	// revision (upstream's 3s) before it fails or goes to storage.
	waitTimeout = 3 * time.Second
	// progressRequestInterval is how often the cache asks for a progress
	// notification while requests are waiting for it to catch up.
	progressRequestInterval = 100 * time.Millisecond
)

var (
	// errUseStorage: the cache cannot answer (it is relisting, too slow for
	// a consistent read, or the read needs a past revision); storage does.
	errUseStorage = errors.New("watch cache cannot serve the request")
	// errTooSlow is the errUseStorage of a consistent read the cache did
	// not catch up for in time: the read falls back to storage.
	errTooSlow = fmt.Errorf("watch cache too slow for a consistent read: %w", errUseStorage)
	// errWaitTimeout: the cache did not reach the revision in time.
	errWaitTimeout = errors.New("watch cache did not catch up in time")
	// errStopped: the cache is stopped and will not be ready again.
	errStopped = errors.New("watch cache is stopped")
)

// waitForRV blocks until the cache is at revision rv or later. While it
// waits the cache asks the underlying storage for progress notifications,
// so a revision reached only by other resources' writes arrives as a
// bookmark. It returns the cache's revision, and errUseStorage (not ready),
// errWaitTimeout or the context's error when it cannot wait.
func (c *Cacher) waitForRV(ctx context.Context, rv uint64) (uint64, error) {
	cur, ready, changed := c.state.view()
	if !ready {
		return cur, errUseStorage
	}
	if cur >= rv {
		return cur, nil
	}
	started := time.Now()
	defer func() { c.metrics.ReadWait(time.Since(started)) }()
	c.progress.waiting(c.ctx, 1)
	defer c.progress.waiting(c.ctx, -1)
	timer := time.NewTimer(waitTimeout)
	defer timer.Stop()
	for {
		select {
		case <-changed:
		case <-timer.C:
			return cur, errWaitTimeout
		case <-ctx.Done():
			return cur, ctx.Err()
		}
		cur, ready, changed = c.state.view()
		if !ready {
			return cur, errUseStorage
		}
		if cur >= rv {
			return cur, nil
		}
	}
}

// waitAtLeast waits for revision rv as a request asking for "not older
// than rv" does: a revision the cache does not reach in time is too large.
func (c *Cacher) waitAtLeast(ctx context.Context, key string, rv uint64) error {
	cur, err := c.waitForRV(ctx, rv)
	if errors.Is(err, errWaitTimeout) {
		return storage.NewError(storage.ErrCodeTooLargeResourceVersion, key, int64(rv),
			fmt.Sprintf("Too large resource version: %d, current: %d", rv, cur))
	}
	return err
}

// waitConsistent waits until the cache holds everything the underlying
// storage had when the request arrived. errUseStorage (also on a timeout)
// sends the request to storage; on a timeout it is errTooSlow.
func (c *Cacher) waitConsistent(ctx context.Context) error {
	if _, ready, _ := c.state.view(); !ready {
		return errUseStorage
	}
	rv, err := c.storage.CurrentResourceVersion(ctx)
	if err != nil {
		return errUseStorage // storage answers with its own error
	}
	if _, err := c.waitForRV(ctx, rv); errors.Is(err, errWaitTimeout) {
		c.logger.Debug("watch cache too slow for a consistent read, using storage", "resourceVersion", rv)
		return errTooSlow
	} else if err != nil {
		return err
	}
	return nil
}

// waitOwnWrites waits (briefly) for the cache to see the writes made
// through it, so that a client reading at resourceVersion "0" after its own
// write sees it. Failing to catch up is not an error: "0" allows any state.
func (c *Cacher) waitOwnWrites(ctx context.Context) {
	if rv := c.written.Load(); rv > 0 {
		_, _ = c.waitForRV(ctx, rv)
	}
}

// waitReady waits for the cache to be ready, at most waitTimeout.
func (c *Cacher) waitReady(ctx context.Context) bool {
	if _, ready, _ := c.state.view(); ready {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, waitTimeout)
	defer cancel()
	return c.WaitReady(ctx) == nil
}

// progressRequester asks the underlying storage for progress
// notifications: when a request starts waiting for the cache and every
// progressRequestInterval while requests wait, and every idle interval
// otherwise (when enabled). Without an idle
// interval (a Backend asks for all its caches) it has a goroutine only
// while requests wait: a server has some 60 caches, nearly always caught up.
type progressRequester struct {
	storage  storage.Interface
	idle     time.Duration // <= 0: only while requests wait
	interval time.Duration // between asks while requests wait
	logger   *slog.Logger
	wake     chan struct{} // signalled when a request starts waiting
	// spawn runs a goroutine the cache's Stop waits for; false once the
	// cache is stopped.
	spawn func(func()) bool

	mu      sync.Mutex
	waiters int
	asking  bool // the goroutine of askWhileWaiting runs
}

func newProgressRequester(s storage.Interface, idle time.Duration, logger *slog.Logger, spawn func(func()) bool) *progressRequester {
	return &progressRequester{storage: s, idle: idle, interval: progressRequestInterval, logger: logger, wake: make(chan struct{}, 1), spawn: spawn}
}

// start begins the idle requests, if there are any to make.
func (p *progressRequester) start(ctx context.Context) {
	if p.idle > 0 {
		p.spawn(func() { p.run(ctx) })
	}
}

func (p *progressRequester) waiting(ctx context.Context, delta int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waiters += delta
	if delta < 0 {
		return
	}
	// Every new waiter gets an ask that starts after it arrived: the
	// revision it waits for may be newer than the last ask's answer.
	select {
	case p.wake <- struct{}{}:
	default:
	}
	if p.idle <= 0 && !p.asking {
		p.asking = p.spawn(func() { p.askWhileWaiting(ctx) })
	}
}

func (p *progressRequester) hasWaiters() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waiters > 0
}

// askWhileWaiting asks at once, then whenever a request starts waiting,
// and every interval until no request waits or ctx ends.
func (p *progressRequester) askWhileWaiting(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			p.mu.Lock()
			p.asking = false
			p.mu.Unlock()
			return
		case <-t.C:
		case <-p.wake:
		}
		p.mu.Lock()
		if p.waiters == 0 {
			p.asking = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		p.ask(ctx)
		t.Reset(p.interval)
	}
}

// run asks every idle interval, and as askWhileWaiting does while
// requests wait.
func (p *progressRequester) run(ctx context.Context) {
	t := time.NewTicker(p.idle)
	defer t.Stop()
	w := time.NewTimer(p.interval)
	defer w.Stop()
	for {
		waitC := t.C
		if p.hasWaiters() {
			w.Reset(p.interval)
			waitC = w.C
		}
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		case <-waitC:
		}
		p.ask(ctx)
	}
}

// ask asks once; it answers every kick that came before it.
func (p *progressRequester) ask(ctx context.Context) {
	select {
	case <-p.wake:
	default:
	}
	if err := p.storage.RequestWatchProgress(ctx); err != nil && ctx.Err() == nil {
		p.logger.Debug("progress request failed", "err", err)
	}
}
