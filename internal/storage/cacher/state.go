package cacher

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/btree"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
)

// item is one object of the cache under its storage key.
type item struct {
	key string
	obj runtime.Object
	// enc holds obj's encodings as a list item, made on the first list
	// that asks for them (see storage.ListSources).
	enc atomic.Pointer[storage.ItemEncodings]
}

// encodings returns the item's encodings, making them on first use.
func (it *item) encodings() *storage.ItemEncodings {
	if e := it.enc.Load(); e != nil {
		return e
	}
	it.enc.CompareAndSwap(nil, &storage.ItemEncodings{})
	return it.enc.Load()
}

// state is what the cache knows: the objects sorted by key, the recent
// changes and the revision both reflect. The reflector writes it; reads and
// new watches take the read lock.
type state struct {
	mu      sync.RWMutex
	items   *btree.BTreeG[*item]
	history *ring
	// snaps holds the states the ring's changes lead through, for
	// continued pages of lists.
	snaps snapshots
	rv    uint64
	// ready is false until the first list and after the underlying watch
	// breaks, until the relist; reads then go to the underlying storage.
	ready bool
	// changed is closed and replaced whenever rv or ready changes, waking
	// everyone waiting for the cache to catch up.
	changed chan struct{}
}

func newState(historySize int) *state {
	return &state{
		items:   newItems(),
		history: newRing(historySize),
		changed: make(chan struct{}),
	}
}

func newItems() *btree.BTreeG[*item] {
	return btree.NewG(32, func(a, b *item) bool { return a.key < b.key })
}

func (s *state) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// view returns the revision, readiness and the channel that closes on the
// next change of either.
func (s *state) view() (rv uint64, ready bool, changed <-chan struct{}) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.rv, s.ready, s.changed
}

// replace installs a fresh list at revision rv and marks the cache ready.
func (s *state) replace(items []*item, rv uint64) {
	tree := newItems()
	for _, it := range items {
		tree.ReplaceOrInsert(it)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = tree
	s.history.reset(rv)
	s.snaps.reset(rv, tree)
	s.rv = rv
	s.ready = true
	s.notifyLocked()
}

// apply records a change reported by the underlying watch and returns the
// event to dispatch; nil when the change is older than the cache.
func (s *state) apply(typ watch.EventType, key string, obj runtime.Object, rv uint64) *event {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rv <= s.rv {
		return nil
	}
	ev := &event{typ: typ, key: key, rv: rv, obj: obj}
	if old, ok := s.items.Get(&item{key: key}); ok {
		ev.prev = old.obj
	}
	if typ == watch.Deleted {
		s.items.Delete(&item{key: key})
	} else {
		s.items.ReplaceOrInsert(&item{key: key, obj: obj})
	}
	s.history.push(ev)
	s.snaps.add(rv, s.items)
	s.snaps.dropBefore(s.history.start)
	s.rv = rv
	s.notifyLocked()
	return ev
}

// advance moves the revision forward on a progress notification: every
// change up to rv has been applied. It reports whether rv was ahead.
func (s *state) advance(rv uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rv <= s.rv {
		return false
	}
	s.rv = rv
	s.notifyLocked()
	return true
}

func (s *state) setNotReady() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ready {
		s.ready = false
		s.notifyLocked()
	}
}

// release drops the objects and the history of a stopped cache, which
// its store may still reference for a while.
func (s *state) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = newItems()
	s.history.reset(s.rv)
	s.snaps.reset(0, nil)
	if s.ready {
		s.ready = false
		s.notifyLocked()
	}
}

// trim forgets the history up to rv after a compaction.
func (s *state) trim(rv uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history.trim(rv)
	s.snaps.dropBefore(s.history.start)
}

// snapshotLocked returns the objects as they were at revision rv, when
// the cache still knows them: rv is not older than the ring reaches back
// and not newer than the cache. Callers hold mu.
func (s *state) snapshotLocked(rv uint64) (*btree.BTreeG[*item], bool) {
	if rv < s.history.start || rv > s.rv {
		return nil, false
	}
	return s.snaps.at(rv)
}

// getLocked returns the object at key. Callers hold mu.
func (s *state) getLocked(key string) (*item, bool) {
	return s.items.Get(&item{key: key})
}

// ascendLocked visits the items whose key starts with prefix, in key
// order, until visit returns false. Callers hold mu.
func (s *state) ascendLocked(prefix string, visit func(*item) bool) {
	ascend(s.items, prefix, prefix, visit)
}

// ascend visits the items of tree from key from on whose key starts with
// prefix, in key order, until visit returns false.
func ascend(tree *btree.BTreeG[*item], from, prefix string, visit func(*item) bool) {
	tree.AscendGreaterOrEqual(&item{key: from}, func(it *item) bool {
		if !strings.HasPrefix(it.key, prefix) {
			return false
		}
		return visit(it)
	})
}
