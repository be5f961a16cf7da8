package memory

import (
	"context"
	"fmt"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/kvstore"
	"github.com/kapi-dev/kapi/internal/storage/watchqueue"
)

// history is a ring of the most recent events, one per revision. It
// starts small and doubles as events arrive, up to max: a test server's
// backend sees a few hundred writes, a busy one its whole bound.
type history struct {
	events []kvstore.Event
	head   int // index of the oldest event
	n      int
	max    int
}

// minHistoryRing is the ring's first size.
const minHistoryRing = 64

func newHistory(size int) *history { return &history{max: size} }

// add appends ev; when the ring is full at its bound the oldest event is
// dropped and returned.
func (h *history) add(ev kvstore.Event) (dropped kvstore.Event, ok bool) {
	if h.n == len(h.events) {
		if len(h.events) < h.max {
			h.grow()
		} else {
			dropped, ok = h.dropOldest()
		}
	}
	h.events[(h.head+h.n)%len(h.events)] = ev
	h.n++
	return dropped, ok
}

// grow doubles the ring (within max). Nothing has been dropped before
// the ring reaches its bound, so the oldest event is still at index 0.
func (h *history) grow() {
	size := min(max(2*len(h.events), minHistoryRing), h.max)
	events := make([]kvstore.Event, size)
	copy(events, h.events[:h.n])
	h.events = events
}

func (h *history) oldest() (kvstore.Event, bool) {
	if h.n == 0 {
		return kvstore.Event{}, false
	}
	return h.events[h.head], true
}

func (h *history) dropOldest() (kvstore.Event, bool) {
	ev, ok := h.oldest()
	if ok {
		h.events[h.head] = kvstore.Event{}
		h.head = (h.head + 1) % len(h.events)
		h.n--
	}
	return ev, ok
}

// since returns the events from revision rev on that match the watcher.
func (h *history) since(rev int64, w *memWatcher) []kvstore.Event {
	var out []kvstore.Event
	for i := range h.n {
		ev := h.events[(h.head+i)%len(h.events)]
		if ev.KV.ModRevision >= rev && w.matches(ev.KV.Key) {
			out = append(out, ev)
		}
	}
	return out
}

// memWatcher receives the events of one key or key range. Its queue is
// bounded as a channel of the same capacity would be, but holds only a
// few slots while nothing waits (the watch of each cached resource is
// idle most of the time).
type memWatcher struct {
	key, end string // end "" watches key alone; "\x00" means no upper bound
	queue    *watchqueue.Queue[kvstore.WatchResponse]
}

var _ kvstore.WatchStream = (*memWatcher)(nil)

func (w *memWatcher) matches(key string) bool {
	switch w.end {
	case "":
		return key == w.key
	case "\x00":
		return key >= w.key
	default:
		return key >= w.key && key < w.end
	}
}

// Next returns the oldest queued response, waiting for one.
func (w *memWatcher) Next(ctx context.Context) (kvstore.WatchResponse, bool) {
	for {
		resp, ok, closed := w.queue.Take()
		if ok || closed {
			return resp, ok
		}
		select {
		case <-ctx.Done():
			return kvstore.WatchResponse{}, false
		case <-w.queue.Ready():
		}
	}
}

// Watch replays the retained events from rev and then follows new ones.
// The queue has room for the replay plus WatchBufferSize more events; a
// watcher that lets it fill up is closed instead of blocking writers.
func (s *kv) Watch(ctx context.Context, key, end string, rev int64, _ bool) (kvstore.WatchStream, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed()
	}
	// Resuming at rev needs every event from rev on.
	if rev <= s.compacted {
		return nil, storage.NewError(storage.ErrCodeExpired, key, s.compacted,
			fmt.Sprintf("required revision %d has been compacted", rev-1))
	}
	w := &memWatcher{key: key, end: end}
	backlog := s.history.since(rev, w)
	w.queue = watchqueue.New[kvstore.WatchResponse](len(backlog) + s.watchBuf)
	for _, ev := range backlog {
		w.queue.Put(kvstore.WatchResponse{Events: []kvstore.Event{ev}, Revision: ev.KV.ModRevision})
	}
	s.watchers[w] = struct{}{}
	context.AfterFunc(ctx, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.removeWatcher(w)
	})
	return w, nil
}

// notify fans ev out without blocking. Callers hold s.mu.
func (s *kv) notify(ev kvstore.Event) {
	for w := range s.watchers {
		if !w.matches(ev.KV.Key) {
			continue
		}
		if !w.queue.Put(kvstore.WatchResponse{Events: []kvstore.Event{ev}, Revision: ev.KV.ModRevision}) {
			// Too slow: end this watch; its client re-lists or resumes.
			s.removeWatcher(w)
		}
	}
}

// RequestProgress tells every watcher that it has seen everything up to the
// current revision. A watcher whose queue is full skips the notification.
func (s *kv) RequestProgress(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed()
	}
	for w := range s.watchers {
		w.queue.Put(kvstore.WatchResponse{Progress: true, Revision: s.rev})
	}
	return nil
}

// removeWatcher unregisters w and closes it once. Callers hold s.mu.
func (s *kv) removeWatcher(w *memWatcher) {
	if _, ok := s.watchers[w]; ok {
		delete(s.watchers, w)
		w.queue.Close()
	}
}
