package kvstore

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
)

// watchBufferSize is how many events wait for a slow consumer before the
// watch goroutine blocks (the KV buffers behind it).
const watchBufferSize = 100

// watcher is the watch.Interface handed to callers.
type watcher struct {
	result chan watch.Event
	cancel context.CancelFunc
}

func (w *watcher) Stop()                          { w.cancel() }
func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

// watchStream turns KV events into API watch events for one watch.
type watchStream struct {
	s           *store
	pred        storage.SelectionPredicate
	requestedRV uint64
	// progressBookmarks turns KV progress notifications into bookmarks.
	progressBookmarks bool
	result            chan watch.Event
}

// Watch starts a watch; see storage.Interface for the resourceVersion rules.
func (s *store) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	if err := s.checkKey(key); err != nil {
		return nil, err
	}
	rv, err := s.versioner.ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	start, end := key, ""
	if opts.Recursive {
		start = prefixKey(key)
		end = PrefixEnd(start)
	}
	wctx, cancel, release, err := s.backend.startWatch(ctx)
	if err != nil {
		return nil, err
	}
	initial, fromRev, err := s.watchStart(wctx, start, end, rv, opts.SendInitialEvents)
	if err != nil {
		release()
		return nil, err
	}
	events, err := s.kv.Watch(wctx, start, end, fromRev+1, opts.ProgressNotify)
	if err != nil {
		release()
		return nil, err
	}
	w := &watcher{result: make(chan watch.Event, watchBufferSize), cancel: cancel}
	ws := &watchStream{
		s:                 s,
		pred:              opts.Predicate,
		requestedRV:       rv,
		progressBookmarks: opts.ProgressNotify && opts.Predicate.AllowWatchBookmarks,
		result:            w.result,
	}
	// The initial-events-end bookmark tells a client that asked for the
	// initial state where that state ends.
	endBookmark := opts.SendInitialEvents != nil && *opts.SendInitialEvents && opts.Predicate.AllowWatchBookmarks
	go func() {
		defer release()
		defer close(w.result)
		ws.run(wctx, initial, fromRev, endBookmark, events)
	}()
	return w, nil
}

// watchStart returns the initial state to send (if any) and the revision
// after which the watch streams changes.
func (s *store) watchStart(ctx context.Context, start, end string, rv uint64, sendInitial *bool) ([]KeyValue, int64, error) {
	wantInitial := (sendInitial == nil && rv == 0) || (sendInitial != nil && *sendInitial)
	switch {
	case wantInitial:
		res, err := s.kv.Range(ctx, start, end, 0, 0)
		return res.KVs, res.Revision, err
	case rv == 0:
		cur, err := s.kv.Revision(ctx)
		return nil, cur, err
	default:
		return nil, int64(rv), nil
	}
}

func (ws *watchStream) run(ctx context.Context, initial []KeyValue, initialRev int64, endBookmark bool, events WatchStream) {
	for _, kv := range initial {
		obj, err := ws.s.decodeNew(ctx, kv.Key, kv.Value, kv.ModRevision)
		if err != nil {
			ws.sendError(ctx, err)
			return
		}
		if ok, err := ws.pred.Matches(obj); err != nil {
			ws.sendError(ctx, err)
			return
		} else if ok && !ws.send(ctx, watch.Event{Type: watch.Added, Object: obj}) {
			return
		}
	}
	if endBookmark && !ws.sendBookmark(ctx, initialRev, true) {
		return
	}
	for {
		resp, ok := events.Next(ctx)
		if !ok {
			return
		}
		if resp.Err != nil {
			ws.sendError(ctx, resp.Err)
			return
		}
		if resp.Progress {
			ws.s.metrics.Bookmark()
			if ws.progressBookmarks && !ws.sendBookmark(ctx, resp.Revision, false) {
				return
			}
			continue
		}
		ws.s.metrics.EventsReceived(len(resp.Events))
		for _, ev := range resp.Events {
			out, ok, err := ws.transform(ctx, ev)
			if err != nil {
				ws.sendError(ctx, err)
				return
			}
			if ok && !ws.send(ctx, out) {
				return
			}
		}
	}
}

// send delivers ev unless the watch is over.
func (ws *watchStream) send(ctx context.Context, ev watch.Event) bool {
	select {
	case ws.result <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// sendBookmark sends an object of the resource's kind carrying only rev
// (and, at the end of the initial state, the initial-events-end annotation).
func (ws *watchStream) sendBookmark(ctx context.Context, rev int64, initialEnd bool) bool {
	obj, err := storage.NewBookmark(ws.s.newFunc, ws.s.versioner, uint64(rev), initialEnd)
	if err != nil {
		ws.sendError(ctx, err)
		return false
	}
	return ws.send(ctx, watch.Event{Type: watch.Bookmark, Object: obj})
}

// sendError ends the watch with an Error event carrying an API status.
func (ws *watchStream) sendError(ctx context.Context, err error) {
	var status metav1.Status
	if storage.IsExpired(err) {
		var se *storage.Error
		compacted := int64(0)
		if asStorageError(err, &se) {
			compacted = se.ResourceVersion
		}
		status = apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", ws.requestedRV, compacted)).Status()
	} else {
		status = apierrors.NewInternalError(err).Status()
	}
	ws.send(ctx, watch.Event{Type: watch.Error, Object: &status})
}

// transform maps one KV event to the API event the predicate calls for: a
// change that moves an object out of the selection is a deletion for this
// watcher and one that moves it in is an addition. ok is false when the
// watcher should not see the event at all.
func (ws *watchStream) transform(ctx context.Context, ev Event) (out watch.Event, ok bool, err error) {
	rev := ev.KV.ModRevision
	if ev.Type == EventDelete {
		if ev.PrevKV == nil {
			return out, false, fmt.Errorf("delete event for %s has no previous value", ev.KV.Key)
		}
		prev, match, err := ws.decodeMatch(ctx, ev.PrevKV, rev)
		return watch.Event{Type: watch.Deleted, Object: prev}, match, err
	}
	cur, curMatch, err := ws.decodeMatch(ctx, &ev.KV, rev)
	if err != nil {
		return out, false, err
	}
	if ev.Created || ws.pred.Empty() {
		t := watch.Modified
		if ev.Created {
			t = watch.Added
		}
		return watch.Event{Type: t, Object: cur}, curMatch, nil
	}
	var prev runtime.Object
	prevMatch := false
	if ev.PrevKV != nil {
		// The old object is reported with the revision of this change, as
		// upstream does, so a client's resourceVersion moves forward.
		if prev, prevMatch, err = ws.decodeMatch(ctx, ev.PrevKV, rev); err != nil {
			return out, false, err
		}
	}
	switch {
	case curMatch && prevMatch:
		return watch.Event{Type: watch.Modified, Object: cur}, true, nil
	case curMatch:
		return watch.Event{Type: watch.Added, Object: cur}, true, nil
	case prevMatch:
		return watch.Event{Type: watch.Deleted, Object: prev}, true, nil
	default:
		return out, false, nil
	}
}

func (ws *watchStream) decodeMatch(ctx context.Context, kv *KeyValue, rev int64) (runtime.Object, bool, error) {
	obj, err := ws.s.decodeNew(ctx, kv.Key, kv.Value, rev)
	if err != nil {
		return nil, false, err
	}
	match, err := ws.pred.Matches(obj)
	return obj, match, err
}
