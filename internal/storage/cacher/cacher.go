// Package cacher is the watch cache: a storage.Interface decorator that keeps
// one resource's objects and recent changes in memory, fed by a single list
// and watch of the underlying storage, and serves lists, gets and watches
// from there. Writes and exact-revision reads go to the underlying storage.
//
// The cache holds the objects of the resource's folder sorted by key, a ring
// of the last changes and the revision both reflect, and a copy-on-write
// snapshot of the objects after each change the ring holds, from which
// continued pages of a list are read at their token's revision
// (snapshots.go, continue.go). One goroutine feeds it
// (reflector.go); one goroutine fans every change out to the watchers
// (dispatch.go), each of which has a bounded buffer that its consumer
// drains through Next, in the consumer's goroutine (watcher.go).
// Objects are decoded once and shared: watchers receive them
// wrapped in a cachingObject that encodes each wire format once.
package cacher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/metrics"
)

// Defaults for Config.
const (
	// DefaultHistorySize is how many recent changes the ring keeps for
	// watches that resume from a resourceVersion.
	DefaultHistorySize = 1000
	// DefaultBookmarkInterval is how often watchers that allow bookmarks
	// get one, as upstream.
	DefaultBookmarkInterval = time.Minute
	// DefaultProgressInterval is how often the cache asks the underlying
	// storage for a progress notification, so its revision keeps moving
	// while its resource is idle.
	DefaultProgressInterval = 5 * time.Second
)

// Config describes one watch cache.
type Config struct {
	// Storage is the underlying store the cache reads from and writes to.
	Storage storage.Interface
	// ResourcePrefix is the resource's folder, e.g. "/configmaps".
	ResourcePrefix string
	NewFunc        func() runtime.Object
	NewListFunc    func() runtime.Object
	// HistorySize is the capacity of the ring of recent changes; 0 means
	// DefaultHistorySize.
	HistorySize int
	// BookmarkInterval is how often watchers that asked for progress get a
	// BOOKMARK; 0 means DefaultBookmarkInterval.
	BookmarkInterval time.Duration
	// ProgressInterval is how often the cache asks Storage for a progress
	// notification; 0 means DefaultProgressInterval and a negative value
	// turns it off (the Backend does it once for all its caches).
	ProgressInterval time.Duration
	// Logger receives the cache's logs; nil discards.
	Logger *slog.Logger
	// Metrics records what the cache does; nil records nothing.
	Metrics *metrics.WatchCache
	// StartAfter, when not nil, holds the first list until it is closed
	// (Backend.DeferInitialSync); reads go to Storage meanwhile.
	StartAfter <-chan struct{}
}

// Cacher is a storage.Interface served from memory. See the package doc.
//
// Objects in lists served from the cache share their maps and slices with
// the cache (as upstream): callers must not modify them. Get returns a deep
// copy, and watch events carry read-only *cachingObject wrappers.
type Cacher struct {
	storage     storage.Interface
	versioner   storage.Versioner
	prefix      string // without trailing "/"
	newFunc     func() runtime.Object
	newListFunc func() runtime.Object
	logger      *slog.Logger
	metrics     *metrics.WatchCache

	state      *state
	dispatcher *dispatcher
	progress   *progressRequester

	// written is the highest resourceVersion a write through this cache
	// returned; reads at resourceVersion "0" wait (briefly) for the cache
	// to reach it, so a client reads its own writes.
	written atomic.Uint64

	// first records the writes made before the first list (see prime.go).
	first firstWrites

	// synced is closed once the first list has completed or failed.
	synced     chan struct{}
	syncedOnce sync.Once

	ctx     context.Context // cancelled by Stop
	cancel  context.CancelFunc
	wg      sync.WaitGroup // every goroutine the cache started
	mu      sync.Mutex     // guards stopped against wg.Add racing wg.Wait
	stopped bool
	// onStop, set by the Backend before the cache is handed out, makes the
	// backend forget the cache.
	onStop func()
}

var _ storage.Interface = (*Cacher)(nil)

// New starts a watch cache: it lists and watches cfg.Storage in the
// background. Until the first list completes, reads go to cfg.Storage.
func New(cfg Config) (*Cacher, error) {
	switch {
	case cfg.Storage == nil:
		return nil, errors.New("cacher: no storage")
	case cfg.NewFunc == nil || cfg.NewListFunc == nil:
		return nil, errors.New("cacher: NewFunc and NewListFunc are required")
	case !strings.HasPrefix(cfg.ResourcePrefix, "/") || strings.TrimRight(cfg.ResourcePrefix, "/") == "":
		return nil, fmt.Errorf("cacher: resource prefix must start with \"/\" and name a folder, got %q", cfg.ResourcePrefix)
	}
	if cfg.HistorySize <= 0 {
		cfg.HistorySize = DefaultHistorySize
	}
	if cfg.BookmarkInterval <= 0 {
		cfg.BookmarkInterval = DefaultBookmarkInterval
	}
	if cfg.ProgressInterval == 0 {
		cfg.ProgressInterval = DefaultProgressInterval
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	logger = logger.With("resource", cfg.ResourcePrefix)
	ctx, cancel := context.WithCancel(context.Background())
	c := &Cacher{
		storage:     cfg.Storage,
		versioner:   cfg.Storage.Versioner(),
		prefix:      strings.TrimRight(cfg.ResourcePrefix, "/"),
		newFunc:     cfg.NewFunc,
		newListFunc: cfg.NewListFunc,
		logger:      logger,
		metrics:     cfg.Metrics,
		state:       newState(cfg.HistorySize),
		dispatcher:  newDispatcher(cfg.BookmarkInterval, logger, cfg.Metrics),
		synced:      make(chan struct{}),
		ctx:         ctx,
		cancel:      cancel,
	}
	if cfg.StartAfter != nil {
		c.first.recording, c.first.created = true, map[string]*item{}
	}
	c.progress = newProgressRequester(cfg.Storage, cfg.ProgressInterval, logger, c.goTracked)
	c.metrics.Capacity(cfg.HistorySize)
	c.wg.Add(2)
	go func() {
		defer c.wg.Done()
		if cfg.StartAfter != nil {
			select {
			case <-cfg.StartAfter:
			case <-ctx.Done():
				c.markSynced()
				return
			}
			c.stopRecording() // if the Backend did not
		}
		c.runReflector(ctx)
	}()
	go func() { defer c.wg.Done(); c.dispatcher.run(ctx) }()
	c.progress.start(ctx)
	return c, nil
}

// Stop ends every watch of the cache (their result channels close, so
// clients re-watch) and its own goroutines, waits for them and drops the
// cached objects; the Backend that made the cache forgets it. Later reads
// and writes go to the underlying storage. Stop may be called more than
// once.
func (c *Cacher) Stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
	c.cancel()
	c.wg.Wait() // the reflector marks the cache not ready as it ends
	c.state.release()
	if c.onStop != nil {
		c.onStop()
	}
}

// Destroy stops the cache: the store of a resource that is no longer
// served (a custom resource whose definition changed or went) releases
// its storage through it.
func (c *Cacher) Destroy() { c.Stop() }

// WaitReady blocks until the cache has listed its resource and serves
// reads, or ctx ends.
func (c *Cacher) WaitReady(ctx context.Context) error {
	for {
		_, ready, changed := c.state.view()
		if ready {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		case <-c.ctx.Done():
			return errStopped
		}
	}
}

// goTracked runs fn in a goroutine Stop waits for; false after Stop.
func (c *Cacher) goTracked(fn func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		fn()
	}()
	return true
}

func (c *Cacher) isStopped() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopped
}

func (c *Cacher) markSynced() { c.syncedOnce.Do(func() { close(c.synced) }) }

func (c *Cacher) Versioner() storage.Versioner { return c.versioner }

// Create writes through to the underlying storage.
func (c *Cacher) Create(ctx context.Context, key string, obj, out runtime.Object) error {
	if out == nil {
		out = c.newFunc() // to learn the write's resourceVersion
	}
	if err := c.storage.Create(ctx, key, obj, out); err != nil {
		return err
	}
	c.noteCreate(out)
	c.noteWrite(out)
	return nil
}

// Delete writes through to the underlying storage.
func (c *Cacher) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions, validateDeletion storage.ValidateObjectFunc) error {
	if out == nil {
		out = c.newFunc()
	}
	c.noteOtherWrite()
	if err := c.storage.Delete(ctx, key, out, preconditions, validateDeletion); err != nil {
		return err
	}
	c.noteWrite(out)
	return nil
}

// GuaranteedUpdate writes through to the underlying storage.
func (c *Cacher) GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool, preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc) error {
	c.noteOtherWrite()
	if err := c.storage.GuaranteedUpdate(ctx, key, destination, ignoreNotFound, preconditions, tryUpdate); err != nil {
		return err
	}
	c.noteWrite(destination)
	return nil
}

// noteWrite raises the read-your-writes floor to obj's resourceVersion.
func (c *Cacher) noteWrite(obj runtime.Object) {
	rv, err := c.versioner.ObjectResourceVersion(obj)
	if err != nil {
		return
	}
	for {
		cur := c.written.Load()
		if rv <= cur || c.written.CompareAndSwap(cur, rv) {
			return
		}
	}
}

// Count is not cached: it asks the underlying storage.
func (c *Cacher) Count(ctx context.Context, key string) (int64, error) {
	return c.storage.Count(ctx, key)
}

// CurrentResourceVersion asks the underlying storage.
func (c *Cacher) CurrentResourceVersion(ctx context.Context) (uint64, error) {
	return c.storage.CurrentResourceVersion(ctx)
}

// RequestWatchProgress asks the underlying storage.
func (c *Cacher) RequestWatchProgress(ctx context.Context) error {
	return c.storage.RequestWatchProgress(ctx)
}

// checkKey rejects keys outside the resource's folder, as the underlying
// storage does for the requests the cache answers itself.
func (c *Cacher) checkKey(key string) error { return storage.CheckKey(key, c.prefix) }

// keyOf is the storage key of obj: <prefix>/<namespace>/<name>, or
// <prefix>/<name> for cluster-scoped objects, as the registry builds keys.
func (c *Cacher) keyOf(obj runtime.Object) (string, error) {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return "", err
	}
	if accessor.GetName() == "" {
		return "", fmt.Errorf("object %T has no name", obj)
	}
	if ns := accessor.GetNamespace(); ns != "" {
		return c.prefix + "/" + ns + "/" + accessor.GetName(), nil
	}
	return c.prefix + "/" + accessor.GetName(), nil
}

// prefixKey is the range prefix of a recursive read of key.
func prefixKey(key string) string {
	if strings.HasSuffix(key, "/") {
		return key
	}
	return key + "/"
}
