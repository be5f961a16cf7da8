package cacher

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/internal/storage/metrics"
)

const (
	// incomingBufferSize is how many applied changes may wait for the
	// dispatcher before the reflector blocks.
	incomingBufferSize = 100
	// Dispatch time budget: a change waits for full watcher buffers at
	// most the budget available, which refills at budgetRefill per second
	// up to maxBudget. A watcher still full after that is closed.
	maxBudget    = 100 * time.Millisecond
	budgetRefill = 100 * time.Millisecond
)

// dispatchItem is what the reflector hands the dispatcher: an applied
// change, or (ev nil) a progress notification at rv.
type dispatchItem struct {
	ev *event
	rv uint64
}

// dispatcher owns the set of watchers and is the one goroutine that fans
// changes out to them. It never blocks on a watcher longer than the time
// budget allows.
type dispatcher struct {
	incoming         chan dispatchItem
	bookmarkInterval time.Duration
	logger           *slog.Logger
	metrics          *metrics.WatchCache

	mu       sync.Mutex
	watchers map[*cacheWatcher]struct{}
	index    *watcherIndex // the same watchers, found by what they select

	// Owned by the run goroutine.
	budget     timeBudget
	dispatched uint64          // revision of the last item fanned out
	targets    []*cacheWatcher // reused between dispatches
	blocked    []*cacheWatcher
}

func newDispatcher(bookmarkInterval time.Duration, logger *slog.Logger, m *metrics.WatchCache) *dispatcher {
	return &dispatcher{
		incoming:         make(chan dispatchItem, incomingBufferSize),
		bookmarkInterval: bookmarkInterval,
		logger:           logger,
		metrics:          m,
		watchers:         make(map[*cacheWatcher]struct{}),
		index:            newWatcherIndex(),
		budget:           timeBudget{avail: maxBudget},
	}
}

// enqueue hands an item to the dispatcher, waiting while it is busy.
func (d *dispatcher) enqueue(ctx context.Context, it dispatchItem) error {
	select {
	case d.incoming <- it:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *dispatcher) add(w *cacheWatcher) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.watchers[w]; !ok {
		d.watchers[w] = struct{}{}
		d.index.add(w)
	}
}

func (d *dispatcher) remove(w *cacheWatcher) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.watchers[w]; ok {
		delete(d.watchers, w)
		d.index.remove(w)
	}
}

// terminateAll closes every watcher: the cache is about to relist.
func (d *dispatcher) terminateAll() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for w := range d.watchers {
		w.terminate()
	}
	clear(d.watchers)
	d.index.clear()
}

func (d *dispatcher) run(ctx context.Context) {
	ticker := time.NewTicker(d.bookmarkInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case it := <-d.incoming:
			d.dispatch(it)
		case <-ticker.C:
			d.bookmark(bookmarkInterval, d.dispatched)
		}
	}
}

func (d *dispatcher) dispatch(it dispatchItem) {
	d.metrics.Dispatched()
	d.dispatched = max(d.dispatched, it.rv)
	if it.ev == nil {
		d.bookmark(bookmarkProgress, d.dispatched)
		return
	}
	// One wrapper per change, shared by every watcher that sends it.
	del := delivery{out: &outgoing{event: it.ev}}
	d.targets = d.interested(it.ev, d.targets[:0])
	d.blocked = d.blocked[:0]
	for _, w := range d.targets {
		if !w.offer(del) {
			d.blocked = append(d.blocked, w)
		}
	}
	if len(d.blocked) > 0 {
		d.waitBlocked(del)
	}
	clear(d.targets) // do not pin stopped watchers
}

// waitBlocked gives watchers with full buffers the available time budget
// to make room, shared by all of them, and closes those that do not.
func (d *dispatcher) waitBlocked(del delivery) {
	start := time.Now()
	avail := d.budget.take(start)
	timer := time.NewTimer(avail)
	defer timer.Stop()
	expired := false
	for _, w := range d.blocked {
		placed := w.offer(del)
		for !placed && !expired {
			select {
			case <-w.buf.Room():
			case <-w.ctx.Done():
			case <-timer.C:
				expired = true
			}
			placed = w.offer(del)
		}
		if !placed {
			d.logger.Info("closing a watcher that does not keep up", "key", w.key)
			d.metrics.WatcherTerminated()
			w.terminate()
			d.remove(w)
		}
	}
	d.budget.giveBack(avail - time.Since(start))
	clear(d.blocked)
}

// interested appends the watchers ev may concern to out (see
// watcherIndex).
func (d *dispatcher) interested(ev *event, out []*cacheWatcher) []*cacheWatcher {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.index.interested(ev, out)
}

// bookmark offers a bookmark at rv to every watcher that asked for
// progress; a watcher with a full buffer skips it.
func (d *dispatcher) bookmark(kind bookmarkKind, rv uint64) {
	if rv == 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for w := range d.watchers {
		if w.bookmarks {
			w.offer(delivery{bookmark: kind, rv: rv})
		}
	}
}

// timeBudget is the time the dispatcher may spend waiting for slow
// watchers. Only the dispatcher goroutine uses it.
type timeBudget struct {
	avail time.Duration
	last  time.Time
}

// take returns everything available, after refilling for the time passed.
func (b *timeBudget) take(now time.Time) time.Duration {
	if !b.last.IsZero() {
		refill := time.Duration(float64(budgetRefill) * now.Sub(b.last).Seconds())
		b.avail = min(maxBudget, b.avail+refill)
	}
	b.last = now
	t := b.avail
	b.avail = 0
	return t
}

// giveBack returns the part of the budget that was not used.
func (b *timeBudget) giveBack(unused time.Duration) {
	if unused > 0 {
		b.avail = min(maxBudget, b.avail+unused)
	}
}
