// Package watchqueue is the bounded first-in, first-out buffer a watch
// keeps between the goroutine that produces its events and the one that
// reads them. Unlike a channel of the same bound, its array grows as items
// wait and is given back once they are read, so the many idle watches of a
// server (one per informer, one per cached resource) hold almost nothing.
package watchqueue

import "sync"

// keptSlots is the array an emptied queue keeps, so that a reader that
// keeps up does not cost an allocation per item.
const keptSlots = 8

// Queue holds at most limit items. One goroutine puts, one takes.
type Queue[T any] struct {
	limit int

	mu     sync.Mutex
	items  []T // items[head:] wait, oldest first
	head   int
	closed bool
	ready  chan struct{} // has a value when an item was put or the queue closed
	room   chan struct{} // has a value when an item was taken from a full queue
}

// New returns an empty queue of at most limit items.
func New[T any](limit int) *Queue[T] {
	return &Queue[T]{limit: limit, ready: make(chan struct{}, 1), room: make(chan struct{}, 1)}
}

// Put adds v; false when the queue is full or closed.
func (q *Queue[T]) Put(v T) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := len(q.items) - q.head
	if q.closed || n >= q.limit {
		return false
	}
	if len(q.items) == cap(q.items) && q.head > 0 {
		// Reuse the slots already read before growing.
		copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	if q.items == nil {
		q.items = make([]T, 0, keptSlots)
	}
	q.items = append(q.items, v)
	signal(q.ready)
	return true
}

// Take removes the oldest item. ok is false when there is none; closed is
// then true if none will come.
func (q *Queue[T]) Take() (v T, ok, closed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == len(q.items) {
		return v, false, q.closed
	}
	if len(q.items)-q.head == q.limit {
		signal(q.room)
	}
	v = q.items[q.head]
	var zero T
	q.items[q.head] = zero
	q.head++
	if q.head == len(q.items) {
		q.head = 0
		q.items = q.items[:0]
		if cap(q.items) > keptSlots {
			q.items = nil
		}
	}
	return v, true, false
}

// Close refuses further items; those queued can still be taken.
func (q *Queue[T]) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	signal(q.ready)
}

// Ready has a value after an item was put or the queue closed: a reader
// that found the queue empty waits on it, then takes again.
func (q *Queue[T]) Ready() <-chan struct{} { return q.ready }

// Room has a value after an item was taken from a full queue: a writer
// that found it full waits on it, then puts again.
func (q *Queue[T]) Room() <-chan struct{} { return q.room }

// signal leaves a value in a channel of capacity one unless one is there.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
