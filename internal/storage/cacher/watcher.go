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

// cacheWatcher is one client's watch on the cache.
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
	buf    chan delivery
	result chan watch.Event

	// Owned by the run goroutine.
	startRV      uint64 // changes up to here come from the start state
	rv           uint64 // the client has seen everything up to here
	lastBookmark uint64
	lastProgress time.Time // when the last progress bookmark went out
}

// watchStart is what a new watcher sends before following live changes.
type watchStart struct {
	initial     []runtime.Object // the state to send as ADDED, if asked
	replay      []*event         // ring changes after the requested revision
	rv          uint64           // the cache revision both reflect
	endBookmark bool             // send the initial-events-end bookmark
}

func (w *cacheWatcher) Stop()                          { w.cancel() }
func (w *cacheWatcher) ResultChan() <-chan watch.Event { return w.result }

// terminate ends the watch from the cache's side; the client sees its
// channel close and re-watches.
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
	case w.buf <- d:
		return true
	case <-w.ctx.Done():
		return true
	default:
		return false
	}
}

// run sends the start state, then the live changes, until the watch ends.
func (w *cacheWatcher) run(st watchStart) {
	defer close(w.result)
	defer w.c.dispatcher.remove(w)
	defer w.cancel()
	w.startRV, w.rv = st.rv, st.rv
	if !w.sendStart(st) {
		return
	}
	for {
		select {
		case <-w.ctx.Done():
			return
		case d := <-w.buf:
			if !w.deliver(d) {
				return
			}
		}
	}
}

// sendStart sends the start state or the replayed changes, and the
// initial-events-end bookmark, counting the events sent in
// apiserver_init_events_total.
func (w *cacheWatcher) sendStart(st watchStart) bool {
	sent := 0
	defer func() { w.c.metrics.InitEvents(sent) }()
	for _, obj := range st.initial {
		ok, err := w.pred.Matches(obj)
		if err != nil {
			return w.sendError(err)
		}
		if !ok {
			continue
		}
		if !w.send(watch.Event{Type: watch.Added, Object: wrap(obj)}) {
			return false
		}
		sent++
	}
	if st.endBookmark {
		if !w.sendBookmark(st.rv, true) {
			return false
		}
		w.lastBookmark = st.rv
	}
	for _, ev := range st.replay {
		ok, wasSent := w.sendChange(&outgoing{event: ev})
		if !ok {
			return false
		}
		if wasSent {
			sent++
		}
	}
	return true
}

func (w *cacheWatcher) deliver(d delivery) bool {
	if d.out != nil {
		if d.out.rv <= w.startRV {
			return true // already part of the start state
		}
		w.rv = d.out.rv
		ok, _ := w.sendChange(d.out)
		return ok
	}
	if d.rv < w.rv {
		return true
	}
	if d.bookmark == bookmarkProgress {
		now := time.Now()
		if d.rv <= w.lastBookmark || now.Sub(w.lastProgress) < progressBookmarkGap {
			return true
		}
		w.lastProgress = now
	}
	w.rv, w.lastBookmark = d.rv, d.rv
	return w.sendBookmark(d.rv, false)
}

// sendChange sends what a change means to this watcher's selection. ok
// is false when the watch is over; sent says whether an event went out.
func (w *cacheWatcher) sendChange(o *outgoing) (ok, sent bool) {
	if !w.coversKey(o.key) {
		return true, false
	}
	ev, selected, err := w.transform(o)
	if err != nil {
		return w.sendError(err), false
	}
	if !selected {
		return true, false
	}
	return w.send(ev), true
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

// sendBookmark sends an object of the resource's kind carrying only rv
// (and, at the end of the initial state, the initial-events-end annotation).
func (w *cacheWatcher) sendBookmark(rv uint64, initialEnd bool) bool {
	obj, err := storage.NewBookmark(w.c.newFunc, w.c.versioner, rv, initialEnd)
	if err != nil {
		return w.sendError(err)
	}
	return w.send(watch.Event{Type: watch.Bookmark, Object: obj})
}

// sendError ends the watch with an internal-error status event.
func (w *cacheWatcher) sendError(err error) bool {
	status := apierrors.NewInternalError(err).Status()
	w.send(watch.Event{Type: watch.Error, Object: &status})
	return false
}

// send hands ev to the client unless the watch is over.
func (w *cacheWatcher) send(ev watch.Event) bool {
	select {
	case w.result <- ev:
		return true
	case <-w.ctx.Done():
		return false
	}
}
