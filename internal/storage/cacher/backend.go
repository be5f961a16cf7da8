package cacher

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/metrics"
)

// initialSyncTimeout bounds how long ForResource waits for a new cache's
// first list; a cache that is not ready by then serves reads from storage
// until it is.
const initialSyncTimeout = 30 * time.Second

// Options are what a Backend gives every cache it creates; zero values
// pick the package defaults.
type Options struct {
	HistorySize      int           // see Config.HistorySize
	BookmarkInterval time.Duration // see Config.BookmarkInterval
	// ProgressInterval is how often the backend asks the inner backend for
	// one progress notification for all its caches; 0 means
	// DefaultProgressInterval, negative turns it off.
	ProgressInterval time.Duration
	Logger           *slog.Logger
	// Metrics records each cache's families under its resource; nil
	// records nothing.
	Metrics *metrics.Metrics
}

// compactor and progressRequesting are the optional abilities of an inner
// backend the Backend forwards (memory and etcd3 have both).
type compactor interface {
	Compact(ctx context.Context, rev int64) error
}

type progressRequesting interface {
	RequestProgress(ctx context.Context) error
}

// Backend decorates a storage.Backend: every resource it hands out is
// served through a watch cache.
type Backend struct {
	inner  storage.Backend
	opts   Options
	logger *slog.Logger

	mu      sync.Mutex
	cachers []*Cacher
	closed  bool
	// deferring is set between DeferInitialSync and WaitInitialSync:
	// ForResource does not wait for a new cache's first list then, and
	// the caches it created are pending until WaitInitialSync, which
	// closes start to let them list.
	deferring bool
	start     chan struct{}
	pending   []*Cacher

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

var _ storage.Backend = (*Backend)(nil)

// NewBackend wraps inner. When inner can be asked for progress, the backend
// asks it once per ProgressInterval for all its caches (one request reaches
// every watch of a memory store or etcd client), instead of each cache
// asking on its own.
func NewBackend(inner storage.Backend, opts Options) *Backend {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.ProgressInterval == 0 {
		opts.ProgressInterval = DefaultProgressInterval
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &Backend{inner: inner, opts: opts, logger: opts.Logger, cancel: cancel}
	if pr, ok := inner.(progressRequesting); ok && opts.ProgressInterval > 0 {
		b.wg.Go(func() { b.requestProgress(ctx, pr) })
	}
	return b
}

func (b *Backend) requestProgress(ctx context.Context, pr progressRequesting) {
	t := time.NewTicker(b.opts.ProgressInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := pr.RequestProgress(ctx); err != nil && ctx.Err() == nil {
				b.logger.Debug("progress request failed", "err", err)
			}
		}
	}
}

// ForResource returns the inner backend's storage for the resource behind
// a watch cache. It waits (boundedly) for the cache's first list, so that
// the cache starts from the state at this call: a client that writes and
// then watches from its write's resourceVersion finds it in the cache's
// history. Between DeferInitialSync and WaitInitialSync it does not wait.
func (b *Backend) ForResource(cfg storage.ResourceConfig) (storage.Interface, error) {
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return nil, storage.NewError(storage.ErrCodeUnreachable, "", 0, "storage backend is closed")
	}
	s, err := b.inner.ForResource(cfg)
	if err != nil {
		return nil, err
	}
	progress := b.opts.ProgressInterval
	if _, ok := b.inner.(progressRequesting); ok {
		progress = -1 // the backend asks for all caches
	}
	b.mu.Lock()
	startAfter := b.start
	b.mu.Unlock()
	c, err := New(Config{
		StartAfter:       startAfter,
		Storage:          s,
		ResourcePrefix:   cfg.ResourcePrefix,
		NewFunc:          cfg.NewFunc,
		NewListFunc:      cfg.NewListFunc,
		HistorySize:      b.opts.HistorySize,
		BookmarkInterval: b.opts.BookmarkInterval,
		ProgressInterval: progress,
		Logger:           b.logger,
		Metrics:          b.opts.Metrics.WatchCache(cfg.GroupResource),
	})
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		c.Stop()
		return nil, storage.NewError(storage.ErrCodeUnreachable, "", 0, "storage backend is closed")
	}
	b.cachers = append(b.cachers, c)
	c.onStop = func() { b.forget(c) }
	deferred := b.deferring
	if deferred {
		b.pending = append(b.pending, c)
	}
	b.mu.Unlock()
	if !deferred {
		b.awaitFirstList(context.Background(), c)
	}
	return c, nil
}

// awaitFirstList waits, at most initialSyncTimeout, for c's first list.
func (b *Backend) awaitFirstList(ctx context.Context, c *Cacher) {
	t := time.NewTimer(initialSyncTimeout)
	defer t.Stop()
	select {
	case <-c.synced:
	case <-ctx.Done():
	case <-t.C:
		b.logger.Warn("watch cache not ready yet; serving from storage meanwhile", "resource", c.prefix)
	}
}

// DeferInitialSync makes ForResource return without waiting for the new
// cache's first list, and the new caches wait with that list until
// WaitInitialSync. A server builds its 60-odd caches that way before it
// serves: their lists run together instead of one after another, no
// client can write and watch before WaitInitialSync, and the bootstrap
// data the server writes meanwhile is in their lists.
//
// The last point matters on etcd: a watch that starts at an older
// revision than etcd's current one is "unsynced" until etcd's catch-up
// loop (every 100 ms) takes it, and etcd answers no progress request on
// a stream while any of its watches is unsynced. The first consistent
// reads (the informers' watch-lists) then waited up to 100 ms.
func (b *Backend) DeferInitialSync() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.deferring {
		b.deferring = true
		b.start = make(chan struct{})
	}
}

// WaitInitialSync lets the caches ForResource created since
// DeferInitialSync list (or start from what was created through them,
// see prime.go), and waits for their first lists (each at most
// initialSyncTimeout, as ForResource would have); then ForResource waits
// again.
func (b *Backend) WaitInitialSync(ctx context.Context) {
	b.mu.Lock()
	pending, start := b.pending, b.start
	b.pending, b.deferring, b.start = nil, false, nil
	b.mu.Unlock()
	if len(pending) > 0 {
		b.primeCaches(ctx, pending)
	}
	if start != nil {
		close(start)
	}
	for _, c := range pending {
		b.awaitFirstList(ctx, c)
	}
}

// forget drops a stopped cache, so that the backend holds only the caches
// of resources still served.
func (b *Backend) forget(c *Cacher) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if i := slices.Index(b.cachers, c); i >= 0 {
		b.cachers = slices.Delete(b.cachers, i, i+1)
	}
}

// Caches is the number of running caches, for tests and metrics.
func (b *Backend) Caches() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.cachers)
}

// Close stops every cache, then closes the inner backend.
func (b *Backend) Close() error {
	b.mu.Lock()
	b.closed = true
	cachers := b.cachers
	b.cachers = nil
	b.mu.Unlock()
	b.cancel()
	b.wg.Wait()
	for _, c := range cachers {
		c.Stop()
	}
	return b.inner.Close()
}

// Compact compacts the inner backend up to rev and makes every cache
// forget its history up to rev, so that watches from before rev get 410
// Gone from the cache as they would from storage.
func (b *Backend) Compact(ctx context.Context, rev int64) error {
	c, ok := b.inner.(compactor)
	if !ok {
		return errors.New("cacher: the inner storage backend cannot compact")
	}
	if err := c.Compact(ctx, rev); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.cachers {
		c.state.trim(uint64(rev))
	}
	return nil
}

// RequestProgress asks the inner backend to send progress notifications to
// its watches, the caches' included.
func (b *Backend) RequestProgress(ctx context.Context) error {
	pr, ok := b.inner.(progressRequesting)
	if !ok {
		return errors.New("cacher: the inner storage backend cannot be asked for progress")
	}
	return pr.RequestProgress(ctx)
}
