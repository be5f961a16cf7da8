package cacher

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
)

// Relist backoff: the first retry is quick, repeated failures slow down.
const (
	minRelistBackoff = 100 * time.Millisecond
	maxRelistBackoff = 30 * time.Second
)

var errWatchClosed = errors.New("underlying watch closed")

// runReflector feeds the cache until ctx ends: list, watch from the list's
// revision, apply events; when the watch ends, close every watcher (their
// clients re-watch) and start over after a backoff.
func (c *Cacher) runReflector(ctx context.Context) {
	backoff := minRelistBackoff
	for {
		started := time.Now()
		err := c.listAndWatch(ctx)
		c.markSynced()
		c.state.setNotReady()
		c.dispatcher.terminateAll()
		if ctx.Err() != nil {
			return
		}
		// A watch that ran for a while was healthy: retry quickly.
		if time.Since(started) > maxRelistBackoff {
			backoff = minRelistBackoff
		}
		c.logger.Warn("watch cache lost its watch, relisting", "err", err, "backoff", backoff)
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, maxRelistBackoff)
	}
}

// listAndWatch lists the resource, starts the underlying watch from the
// list's revision and applies its events until it ends.
func (c *Cacher) listAndWatch(ctx context.Context) error {
	started := time.Now()
	items, rv, primed := c.takePrimed()
	var err error
	if !primed {
		items, rv, err = c.list(ctx)
	}
	if err != nil {
		c.initializationFailed(ctx)
		return err
	}
	pred := storage.Everything
	pred.AllowWatchBookmarks = true
	noInitial := false
	w, err := c.storage.Watch(ctx, c.prefix, storage.ListOptions{
		ResourceVersion:   strconv.FormatUint(rv, 10),
		Recursive:         true,
		Predicate:         pred,
		ProgressNotify:    true,
		SendInitialEvents: &noInitial,
	})
	if err != nil {
		c.initializationFailed(ctx)
		return fmt.Errorf("watching %s: %w", c.prefix, err)
	}
	defer w.Stop()
	// Counted before the state is ready: whoever waits for it sees the
	// initialization's metrics.
	c.metrics.Initialized(started, rv)
	c.state.replace(items, rv)
	c.markSynced()
	c.logger.Debug("watch cache ready", "items", len(items), "resourceVersion", rv)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-w.ResultChan():
			if !ok {
				return errWatchClosed
			}
			if err := c.handle(ctx, ev); err != nil {
				return err
			}
		}
	}
}

// initializationFailed counts a list or watch that could not fill the
// cache, unless the cache is stopping.
func (c *Cacher) initializationFailed(ctx context.Context) {
	if ctx.Err() == nil {
		c.metrics.InitializationFailed()
	}
}

// list reads the whole resource with a consistent read.
func (c *Cacher) list(ctx context.Context) ([]*item, uint64, error) {
	list := c.newListFunc()
	opts := storage.ListOptions{Recursive: true, Predicate: storage.Everything}
	if err := c.storage.GetList(ctx, c.prefix, opts, list); err != nil {
		return nil, 0, fmt.Errorf("listing %s: %w", c.prefix, err)
	}
	accessor, err := meta.ListAccessor(list)
	if err != nil {
		return nil, 0, err
	}
	rv, err := c.versioner.ParseResourceVersion(accessor.GetResourceVersion())
	if err != nil {
		return nil, 0, err
	}
	items := make([]*item, 0, meta.LenList(list))
	// WithAlloc: each cached object must not pin the whole list's array.
	err = meta.EachListItemWithAlloc(list, func(obj runtime.Object) error {
		key, err := c.keyOf(obj)
		if err != nil {
			return err
		}
		items = append(items, &item{key: key, obj: obj})
		return nil
	})
	return items, rv, err
}

// handle applies one event of the underlying watch and queues it for the
// watchers.
func (c *Cacher) handle(ctx context.Context, ev watch.Event) error {
	switch ev.Type {
	case watch.Added, watch.Modified, watch.Deleted:
		c.metrics.EventReceived()
		key, err := c.keyOf(ev.Object)
		if err != nil {
			return err
		}
		rv, err := c.versioner.ObjectResourceVersion(ev.Object)
		if err != nil {
			return err
		}
		if applied := c.state.apply(ev.Type, key, ev.Object, rv); applied != nil {
			c.metrics.ResourceVersion(rv)
			return c.dispatcher.enqueue(ctx, dispatchItem{ev: applied, rv: rv})
		}
		return nil
	case watch.Bookmark:
		rv, err := c.versioner.ObjectResourceVersion(ev.Object)
		if err != nil {
			return err
		}
		if c.state.advance(rv) {
			c.metrics.ResourceVersion(rv)
		}
		return c.dispatcher.enqueue(ctx, dispatchItem{rv: rv})
	case watch.Error:
		return fmt.Errorf("underlying watch failed: %w", apierrors.FromObject(ev.Object))
	default:
		return fmt.Errorf("unexpected watch event type %q", ev.Type)
	}
}
