package memory

import (
	"context"
	"fmt"
	"sync"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/kvstore"
)

// history is a ring of the most recent events, one per revision.
type history struct {
	events []kvstore.Event
	head   int // index of the oldest event
	n      int
}

func newHistory(size int) *history { return &history{events: make([]kvstore.Event, size)} }

// add appends ev; when the ring is full the oldest event is dropped and
// returned.
func (h *history) add(ev kvstore.Event) (dropped kvstore.Event, ok bool) {
	if h.n == len(h.events) {
		dropped, ok = h.dropOldest()
	}
	h.events[(h.head+h.n)%len(h.events)] = ev
	h.n++
	return dropped, ok
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

// memWatcher receives the events of one key or key range. Its queue
// grows as events wait and is dropped once read, so an idle watch (one
// per cached resource) holds no buffer; limit bounds it as a channel of
// that capacity would.
type memWatcher struct {
	key, end string // end "" watches key alone; "\x00" means no upper bound
	limit    int

	mu     sync.Mutex
	queue  []kvstore.WatchResponse
	closed bool
	ready  chan struct{} // has a value when something was queued or the watch closed
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

// put queues r unless the queue is full or the watch closed.
func (w *memWatcher) put(r kvstore.WatchResponse) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || len(w.queue) >= w.limit {
		return false
	}
	w.queue = append(w.queue, r)
	w.wake()
	return true
}

// close ends the watch once the queued responses are read.
func (w *memWatcher) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	w.wake()
}

func (w *memWatcher) wake() {
	select {
	case w.ready <- struct{}{}:
	default:
	}
}

// Next returns the oldest queued response, waiting for one.
func (w *memWatcher) Next(ctx context.Context) (kvstore.WatchResponse, bool) {
	for {
		w.mu.Lock()
		if len(w.queue) > 0 {
			r := w.queue[0]
			w.queue[0] = kvstore.WatchResponse{}
			w.queue = w.queue[1:]
			if len(w.queue) == 0 {
				w.queue = nil
			}
			w.mu.Unlock()
			return r, true
		}
		closed := w.closed
		w.mu.Unlock()
		if closed {
			return kvstore.WatchResponse{}, false
		}
		select {
		case <-ctx.Done():
			return kvstore.WatchResponse{}, false
		case <-w.ready:
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
	w := &memWatcher{key: key, end: end, ready: make(chan struct{}, 1)}
	backlog := s.history.since(rev, w)
	w.limit = len(backlog) + s.watchBuf
	for _, ev := range backlog {
		w.put(kvstore.WatchResponse{Events: []kvstore.Event{ev}, Revision: ev.KV.ModRevision})
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
		if !w.put(kvstore.WatchResponse{Events: []kvstore.Event{ev}, Revision: ev.KV.ModRevision}) {
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
		w.put(kvstore.WatchResponse{Progress: true, Revision: s.rev})
	}
	return nil
}

// removeWatcher unregisters w and closes it once. Callers hold s.mu.
func (s *kv) removeWatcher(w *memWatcher) {
	if _, ok := s.watchers[w]; ok {
		delete(s.watchers, w)
		w.close()
	}
}
