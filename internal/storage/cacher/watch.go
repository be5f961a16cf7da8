package cacher

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/watchqueue"
)

// Watch serves a watch from the cache with the storage's resourceVersion
// rules: "" and "0" start with the current state as ADDED events ("" once
// the cache is as fresh as storage; with SendInitialEvents false both start
// from now); a number N replays the changes after N from the ring, or
// reports 410 Gone when the ring no longer reaches back to N. A watch the
// cache cannot serve (not ready, or too slow to catch up for "") goes to
// the underlying storage.
func (c *Cacher) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	if err := c.checkKey(key); err != nil {
		return nil, err
	}
	rv, err := c.versioner.ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	if !c.waitReady(ctx) {
		return c.storage.Watch(ctx, key, opts)
	}
	switch {
	case opts.ResourceVersion == "":
		err = c.waitConsistent(ctx)
	case rv == 0:
		c.waitOwnWrites(ctx)
	default:
		err = c.waitAtLeast(ctx, key, rv)
	}
	if errors.Is(err, errUseStorage) {
		return c.storage.Watch(ctx, key, opts)
	}
	if err != nil {
		return nil, err
	}
	w, err := c.startWatch(ctx, key, rv, opts)
	if errors.Is(err, errUseStorage) {
		return c.storage.Watch(ctx, key, opts)
	}
	return w, err
}

// startWatch registers a watcher; its consumer drives it. Taking the start
// state and registering happen under the state's read lock, so the watcher
// misses no change: everything after the start state's revision is
// dispatched to it.
func (c *Cacher) startWatch(ctx context.Context, key string, rv uint64, opts storage.ListOptions) (watch.Interface, error) {
	c.state.mu.RLock()
	defer c.state.mu.RUnlock()
	if !c.state.ready {
		return nil, errUseStorage
	}
	wantInitial := (opts.SendInitialEvents == nil && rv == 0) || (opts.SendInitialEvents != nil && *opts.SendInitialEvents)
	st := watchStart{
		rv:          c.state.rv,
		endBookmark: opts.SendInitialEvents != nil && *opts.SendInitialEvents && opts.Predicate.AllowWatchBookmarks,
	}
	w := c.newWatcher(ctx, key, opts)
	switch {
	case wantInitial:
		st.initial = c.objectsLocked(key, opts.Recursive)
	case rv == 0:
		// From now: nothing to replay.
	case rv < c.state.history.start:
		w.cancel()
		return expiredWatch(rv, c.state.history.start), nil
	default:
		st.replay = c.state.history.since(rv, func(ev *event) bool { return w.coversKey(ev.key) })
	}
	if c.isStopped() {
		w.cancel()
		return nil, storage.NewError(storage.ErrCodeUnreachable, key, 0, "watch cache is stopped")
	}
	w.start, w.startRV, w.rv = st, st.rv, st.rv
	c.dispatcher.add(w)
	return w, nil
}

func (c *Cacher) newWatcher(ctx context.Context, key string, opts storage.ListOptions) *cacheWatcher {
	wctx, cancel := context.WithCancel(ctx)
	// The watch also ends when the cache stops.
	stop := context.AfterFunc(c.ctx, cancel)
	w := &cacheWatcher{
		c:         c,
		key:       key,
		recursive: opts.Recursive,
		pred:      opts.Predicate,
		bookmarks: opts.ProgressNotify && opts.Predicate.AllowWatchBookmarks,
		ctx:       wctx,
		cancel:    func() { stop(); cancel() },
		buf:       watchqueue.New[delivery](watcherBufferSize),
	}
	if opts.Recursive {
		w.key = prefixKey(key)
	}
	return w
}

// objectsLocked returns the objects under key (or at key when not
// recursive). Callers hold the state's lock.
func (c *Cacher) objectsLocked(key string, recursive bool) []runtime.Object {
	if !recursive {
		if it, ok := c.state.getLocked(key); ok {
			return []runtime.Object{it.obj}
		}
		return nil
	}
	var out []runtime.Object
	c.state.ascendLocked(prefixKey(key), func(it *item) bool {
		out = append(out, it.obj)
		return true
	})
	return out
}

// expiredWatch is a finished watch whose only event is the 410 Gone
// status a watch from a compacted revision gets from storage.
func expiredWatch(requested, oldest uint64) watch.Interface {
	status := apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", requested, oldest)).Status()
	ch := make(chan watch.Event, 1)
	ch <- watch.Event{Type: watch.Error, Object: &status}
	close(ch)
	return closedWatch(ch)
}

// closedWatch is a watch whose channel is already filled and closed.
type closedWatch chan watch.Event

func (w closedWatch) Stop()                          {}
func (w closedWatch) ResultChan() <-chan watch.Event { return w }
