package cacher

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// event is one change the cache applied. Its objects are shared by the
// cache, the ring and every watcher, so nobody may modify them.
type event struct {
	typ watch.EventType // Added (the key was created), Modified or Deleted
	key string
	rv  uint64
	// obj is the new object; for Deleted, the last state stamped with the
	// deletion's resourceVersion, as the storage reports it.
	obj runtime.Object
	// prev is the object before the change; nil when the key was new.
	prev runtime.Object
}

// ring is a circular buffer of the most recent events, at most capacity.
// Its array grows as events come, so the cache of a resource that rarely
// changes holds a few slots rather than capacity of them.
type ring struct {
	events   []*event
	head     int // index of the oldest event
	n        int
	capacity int
	// start is the revision after which no event has been dropped: a
	// watch from any revision >= start can be replayed from the ring.
	start uint64
}

func newRing(capacity int) *ring { return &ring{capacity: capacity} }

// reset empties the ring after a fresh list at revision start.
func (r *ring) reset(start uint64) {
	r.events = nil
	r.head, r.n, r.start = 0, 0, start
}

// push appends ev, dropping the oldest event when the ring is full.
func (r *ring) push(ev *event) {
	if r.n == len(r.events) && r.n < r.capacity {
		r.grow()
	}
	if r.n == len(r.events) {
		r.dropOldest()
	}
	r.events[(r.head+r.n)%len(r.events)] = ev
	r.n++
}

// grow doubles the array, up to capacity, with the oldest event first.
func (r *ring) grow() {
	events := make([]*event, min(r.capacity, max(16, 2*len(r.events))))
	for i := range r.n {
		events[i] = r.events[(r.head+i)%len(r.events)]
	}
	r.events, r.head = events, 0
}

func (r *ring) dropOldest() {
	old := r.events[r.head]
	r.start = max(r.start, old.rv)
	r.events[r.head] = nil
	r.head = (r.head + 1) % len(r.events)
	r.n--
}

// trim forgets every event at or below rv, as a compaction of the
// underlying storage does.
func (r *ring) trim(rv uint64) {
	for r.n > 0 && r.events[r.head].rv <= rv {
		r.dropOldest()
	}
	r.start = max(r.start, rv)
}

// since returns the events after rv that keep selects, oldest first. The
// caller checks rv >= r.start first.
func (r *ring) since(rv uint64, keep func(*event) bool) []*event {
	var out []*event
	for i := range r.n {
		ev := r.events[(r.head+i)%len(r.events)]
		if ev.rv > rv && keep(ev) {
			out = append(out, ev)
		}
	}
	return out
}
