package cacher

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/watchqueue"
)

const (
	// watcherBufferSize is how many changes a watcher may fall behind
	// before the dispatcher spends its time budget on it and then closes it.
	watcherBufferSize = 100
	// progressBookmarkGap rate-limits a watcher's progress bookmarks: many
	// progress requests (consistent reads, other resources on the same etcd
	// stream) must not flood clients.
	progressBookmarkGap = time.Second
)

// bookmarkKind says why a bookmark is offered.
type bookmarkKind int

const (
	bookmarkNone bookmarkKind = iota // the delivery is a change
	// bookmarkInterval: the periodic bookmark, sent whenever the watcher
	// has seen everything up to its revision.
	bookmarkInterval
	// bookmarkProgress: a progress notification; sent only when the
	// watcher has not had a bookmark at that revision yet, and at most once
	// per progressBookmarkGap.
	bookmarkProgress
)

// delivery is one entry of a watcher's buffer: a change, or a bookmark at rv.
type delivery struct {
	out      *outgoing
	bookmark bookmarkKind
	rv       uint64
}

// outgoing is a change as sent to watchers, with the wrappers of its
// objects made once for all the watchers that send them.
type outgoing struct {
	*event
	objOnce, prevOnce sync.Once
	objOut, prevOut   runtime.Object
}

// object is the event's object, wrapped for sharing.
func (o *outgoing) object() runtime.Object {
	o.objOnce.Do(func() { o.objOut = wrap(o.obj) })
	return o.objOut
}

// prevAtRV is the previous object reported with this change's
// resourceVersion, for a watcher that sees the change as a deletion
// because the object left its selection.
func (o *outgoing) prevAtRV(v storage.Versioner) runtime.Object {
	o.prevOnce.Do(func() {
		out := wrap(o.prev)
		if err := v.UpdateObject(out, o.rv); err == nil {
			o.prevOut = out
		}
	})
	return o.prevOut
}

// wrap returns obj in a cachingObject, or a private copy when it cannot be
// wrapped.
func wrap(obj runtime.Object) runtime.Object {
	if co, err := newCachingObject(obj); err == nil {
		return co
	}
	return obj.DeepCopyObject()
}

// cacheWatcher is one client's watch on the cache. Its consumer drives
// it: the HTTP handler calls Next in its own goroutine, so a watch served
// over HTTP costs no goroutine here; ResultChan starts one, on first use,
// for every other consumer.
type cacheWatcher struct {
	c         *Cacher
	key       string
	recursive bool
	pred      storage.SelectionPredicate
	// bookmarks: the client allows bookmarks and asked for progress.
	bookmarks bool
	// indexedBy is the field requirement the dispatcher's index files the
	// watcher under, when indexed.
	indexedBy fieldValue
	indexed   bool

	ctx    context.Context // ends on Stop, termination or cache stop
	cancel context.CancelFunc
	// buf holds what the dispatcher offered and Next has not taken yet.
	buf *watchqueue.Queue[delivery]

	resultOnce sync.Once
	result     chan watch.Event // made by the first ResultChan

	// Owned by the goroutine calling Next.
	start        watchStart // what is left of the start state to send
	startRV      uint64     // changes up to here come from the start state
	rv           uint64     // the client has seen everything up to here
	lastBookmark uint64
	lastProgress time.Time // when the last progress bookmark went out
	failed       bool      // an error event went out: the watch is over
}

// watchStart is what a new watcher sends before following live changes.
type watchStart struct {
	initial     []runtime.Object // the state to send as ADDED, if asked
	replay      []*event         // ring changes after the requested revision
	rv          uint64           // the cache revision both reflect
	endBookmark bool             // send the initial-events-end bookmark
}

var _ storage.PulledWatch = (*cacheWatcher)(nil)

// Stop ends the watch and leaves the dispatcher; safe at any time, from
// any goroutine, more than once.
func (w *cacheWatcher) Stop() {
	w.cancel()
	w.c.dispatcher.remove(w)
}

// ResultChan starts, on first use, the goroutine that feeds the channel
// from Next.
func (w *cacheWatcher) ResultChan() <-chan watch.Event {
	w.resultOnce.Do(func() {
		w.result = make(chan watch.Event)
		if w.ctx.Err() != nil || !w.c.goTracked(w.pump) {
			w.Stop()
			close(w.result)
		}
	})
	return w.result
}

// pump hands the events to ResultChan until the watch ends.
func (w *cacheWatcher) pump() {
	defer close(w.result)
	for {
		ev, ok := w.Next(w.ctx)
		if !ok {
			return
		}
		select {
		case w.result <- ev:
		case <-w.ctx.Done():
			w.Stop()
			return
		}
	}
}

// terminate ends the watch from the cache's side; the client sees the
// watch end and re-watches. It does not take the dispatcher's lock.
func (w *cacheWatcher) terminate() { w.cancel() }

func (w *cacheWatcher) coversKey(key string) bool {
	if w.recursive {
		return len(key) > len(w.key) && strings.HasPrefix(key, w.key)
	}
	return key == w.key
}

// offer puts d in the buffer without blocking; false when it is full. A
// finished watcher takes (and drops) everything.
func (w *cacheWatcher) offer(d delivery) bool {
	select {
	case <-w.ctx.Done():
		return true
	default:
		return w.buf.Put(d)
	}
}

// Next returns the next event: the start state first, then the live
// changes and bookmarks as the dispatcher buffers them. Once the watch is
// over (an error event went out, Stop, termination, cache stop) it stops
// the watcher and returns false.
func (w *cacheWatcher) Next(ctx context.Context) (watch.Event, bool) {
	return w.next(ctx, true)
}

// TryNext returns the next event if one is ready: false when none is, or
// when the watch is over (Next then stops the watcher).
func (w *cacheWatcher) TryNext(ctx context.Context) (watch.Event, bool) {
	return w.next(ctx, false)
}

func (w *cacheWatcher) next(ctx context.Context, wait bool) (watch.Event, bool) {
	for !w.failed && w.ctx.Err() == nil {
		if ctx.Err() != nil {
			return watch.Event{}, false
		}
		if w.startLeft() {
			if ev, ok := w.nextStart(); ok {
				return ev, true
			}
			continue
		}
		if d, ok, _ := w.buf.Take(); ok {
			if ev, ok := w.deliver(d); ok {
				return ev, true
			}
			continue
		}
		if !wait {
			return watch.Event{}, false
		}
		select {
		case <-w.ctx.Done():
		case <-ctx.Done():
			return watch.Event{}, false
		case <-w.buf.Ready():
		}
	}
	if wait {
		w.Stop()
	}
	return watch.Event{}, false
}

func (w *cacheWatcher) startLeft() bool {
	return len(w.start.initial) > 0 || w.start.endBookmark || len(w.start.replay) > 0
}

// nextStart takes one item of the start state: an object of the state
// (sent as ADDED), the initial-events-end bookmark, or a replayed change.
// ok is false when the item means nothing to this watcher. The events
// sent count in apiserver_init_events_total.
func (w *cacheWatcher) nextStart() (ev watch.Event, ok bool) {
	st := &w.start
	switch {
	case len(st.initial) > 0:
		obj := st.initial[0]
		st.initial = st.initial[1:]
		match, err := w.pred.Matches(obj)
		if err != nil {
			return w.fail(err), true
		}
		if !match {
			return ev, false
		}
		w.c.metrics.InitEvents(1)
		return watch.Event{Type: watch.Added, Object: wrap(obj)}, true
	case st.endBookmark:
		st.endBookmark = false
		w.lastBookmark = st.rv
		return w.bookmark(st.rv, true), true
	default:
		o := &outgoing{event: st.replay[0]}
		st.replay = st.replay[1:]
		if ev, ok = w.change(o); ok && !w.failed {
			w.c.metrics.InitEvents(1)
		}
		return ev, ok
	}
}

// deliver turns a buffered delivery into the event to send; ok is false
// when there is none.
func (w *cacheWatcher) deliver(d delivery) (ev watch.Event, ok bool) {
	if d.out != nil {
		if d.out.rv <= w.startRV {
			return ev, false // already part of the start state
		}
		w.rv = d.out.rv
		return w.change(d.out)
	}
	if d.rv < w.rv {
		return ev, false
	}
	if d.bookmark == bookmarkProgress {
		now := time.Now()
		if d.rv <= w.lastBookmark || now.Sub(w.lastProgress) < progressBookmarkGap {
			return ev, false
		}
		w.lastProgress = now
	}
	w.rv, w.lastBookmark = d.rv, d.rv
	return w.bookmark(d.rv, false), true
}

// change is the event a change means to this watcher's selection; ok is
// false when it means none.
func (w *cacheWatcher) change(o *outgoing) (ev watch.Event, ok bool) {
	if !w.coversKey(o.key) {
		return ev, false
	}
	ev, selected, err := w.transform(o)
	if err != nil {
		return w.fail(err), true
	}
	return ev, selected
}

// transform maps a change to the event this watcher sees, as the storage
// watch does: a change that moves an object out of the selection is a
// deletion (of the previous state, at the change's resourceVersion), one
// that moves it in is an addition. ok is false when the watcher sees
// nothing.
func (w *cacheWatcher) transform(o *outgoing) (ev watch.Event, ok bool, err error) {
	curMatch, err := w.pred.Matches(o.obj)
	if err != nil {
		return ev, false, err
	}
	if o.typ == watch.Deleted || o.typ == watch.Added || w.pred.Empty() {
		return watch.Event{Type: o.typ, Object: o.object()}, curMatch, nil
	}
	prevMatch := false
	if o.prev != nil {
		if prevMatch, err = w.pred.Matches(o.prev); err != nil {
			return ev, false, err
		}
	}
	switch {
	case curMatch && prevMatch:
		return watch.Event{Type: watch.Modified, Object: o.object()}, true, nil
	case curMatch:
		return watch.Event{Type: watch.Added, Object: o.object()}, true, nil
	case prevMatch:
		prev := o.prevAtRV(w.c.versioner)
		if prev == nil {
			return ev, false, fmt.Errorf("cannot set resourceVersion %d on the previous state of %s", o.rv, o.key)
		}
		return watch.Event{Type: watch.Deleted, Object: prev}, true, nil
	default:
		return ev, false, nil
	}
}

// bookmark is an object of the resource's kind carrying only rv (and, at
// the end of the initial state, the initial-events-end annotation).
func (w *cacheWatcher) bookmark(rv uint64, initialEnd bool) watch.Event {
	obj, err := storage.NewBookmark(w.c.newFunc, w.c.versioner, rv, initialEnd)
	if err != nil {
		return w.fail(err)
	}
	return watch.Event{Type: watch.Bookmark, Object: obj}
}

// fail is the internal-error status event that ends the watch.
func (w *cacheWatcher) fail(err error) watch.Event {
	w.failed = true
	status := apierrors.NewInternalError(err).Status()
	return watch.Event{Type: watch.Error, Object: &status}
}
