package memory

import (
	"context"
	"fmt"
	"sync"

	"github.com/google/btree"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/kvstore"
)

// version is one value of a key; a nil value is a deletion (tombstone).
type version struct {
	rev   int64
	value []byte
}

// record is a key with its retained versions, oldest first.
type record struct {
	key      string
	versions []version
}

// at returns the key's value as of revision rev, if it existed then.
func (r *record) at(rev int64) (version, bool) {
	for i := len(r.versions) - 1; i >= 0; i-- {
		if v := r.versions[i]; v.rev <= rev {
			return v, v.value != nil
		}
	}
	return version{}, false
}

func (r *record) latest() (version, bool) {
	v := r.versions[len(r.versions)-1]
	return v, v.value != nil
}

// kv is an in-memory multi-version key-value store implementing kvstore.KV.
// Stored values are shared with readers, which must not modify them.
type kv struct {
	mu        sync.RWMutex
	rev       int64 // current revision; every write adds one
	compacted int64 // state at this revision is readable, events up to it are gone
	tree      *btree.BTreeG[*record]
	history   *history
	watchers  map[*memWatcher]struct{}
	watchBuf  int
	closed    bool
}

var _ kvstore.KV = (*kv)(nil)

func errClosed() error {
	return storage.NewError(storage.ErrCodeUnreachable, "", 0, "memory storage is closed")
}

func newKV(historySize, watchBuf int) *kv {
	return &kv{
		// Revision 1 is the empty store, as in a new etcd cluster.
		rev:      1,
		tree:     btree.NewG(32, func(a, b *record) bool { return a.key < b.key }),
		history:  newHistory(historySize),
		watchers: make(map[*memWatcher]struct{}),
		watchBuf: watchBuf,
	}
}

func (s *kv) get(key string) (*record, bool) {
	return s.tree.Get(&record{key: key})
}

// readRev resolves the revision a read asks for (0: latest) and checks it
// is still and already available. Callers hold s.mu.
func (s *kv) readRev(rev int64) (int64, error) {
	switch {
	case s.closed:
		return 0, errClosed()
	case rev == 0:
		return s.rev, nil
	case rev < s.compacted:
		return 0, storage.NewError(storage.ErrCodeExpired, "", s.compacted,
			fmt.Sprintf("required revision %d has been compacted", rev))
	case rev > s.rev:
		return 0, storage.NewError(storage.ErrCodeTooLargeResourceVersion, "", rev,
			fmt.Sprintf("required revision %d is a future revision (current %d)", rev, s.rev))
	}
	return rev, nil
}

// ascend visits the records in [key, end); "\x00" as end means no bound.
func (s *kv) ascend(key, end string, visit func(*record) bool) {
	if end == "\x00" {
		s.tree.AscendGreaterOrEqual(&record{key: key}, visit)
		return
	}
	s.tree.AscendRange(&record{key: key}, &record{key: end}, visit)
}

func (s *kv) Range(_ context.Context, key, end string, rev, limit int64) (kvstore.RangeResult, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	rev, err := s.readRev(rev)
	if err != nil {
		return kvstore.RangeResult{}, err
	}
	res := kvstore.RangeResult{Revision: s.rev}
	if end == "" {
		if r, ok := s.get(key); ok {
			if v, ok := r.at(rev); ok {
				res.KVs = []kvstore.KeyValue{{Key: key, Value: v.value, ModRevision: v.rev}}
				res.Count = 1
			}
		}
		return res, nil
	}
	s.ascend(key, end, func(r *record) bool {
		v, ok := r.at(rev)
		if !ok {
			return true
		}
		res.Count++
		if limit > 0 && int64(len(res.KVs)) >= limit {
			res.More = true
		} else {
			res.KVs = append(res.KVs, kvstore.KeyValue{Key: r.key, Value: v.value, ModRevision: v.rev})
		}
		return true
	})
	return res, nil
}

func (s *kv) Count(_ context.Context, key, end string) (int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return 0, errClosed()
	}
	var n int64
	s.ascend(key, end, func(r *record) bool {
		if _, ok := r.latest(); ok {
			n++
		}
		return true
	})
	return n, nil
}

func (s *kv) Revision(context.Context) (int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return 0, errClosed()
	}
	return s.rev, nil
}

func (s *kv) Put(_ context.Context, key string, value []byte, expected int64) (int64, *kvstore.KeyValue, bool, error) {
	return s.write(key, value, expected)
}

func (s *kv) Delete(_ context.Context, key string, expected int64) (int64, *kvstore.KeyValue, bool, error) {
	return s.write(key, nil, expected)
}

// write stores value (nil deletes) if the key's modification revision is
// expected, records the event and fans it out to watchers.
func (s *kv) write(key string, value []byte, expected int64) (int64, *kvstore.KeyValue, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, nil, false, errClosed()
	}
	r, found := s.get(key)
	var cur *kvstore.KeyValue
	if found {
		if v, ok := r.latest(); ok {
			cur = &kvstore.KeyValue{Key: key, Value: v.value, ModRevision: v.rev}
		}
	}
	if (cur == nil && expected != 0) || (cur != nil && cur.ModRevision != expected) || (cur == nil && value == nil) {
		return 0, cur, false, nil
	}
	s.rev++
	if !found {
		r = &record{key: key}
		s.tree.ReplaceOrInsert(r)
	}
	r.versions = append(r.versions, version{rev: s.rev, value: value})
	ev := kvstore.Event{Type: kvstore.EventPut, KV: kvstore.KeyValue{Key: key, Value: value, ModRevision: s.rev}, PrevKV: cur, Created: cur == nil}
	if value == nil {
		ev.Type, ev.KV.Value = kvstore.EventDelete, nil
	}
	if dropped, ok := s.history.add(ev); ok {
		s.forget(dropped)
	}
	s.notify(ev)
	return s.rev, nil, true, nil
}

// compact drops history up to and including rev.
func (s *kv) compact(rev int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed()
	}
	if rev > s.rev {
		return storage.NewError(storage.ErrCodeTooLargeResourceVersion, "", rev, "cannot compact beyond the current revision")
	}
	for {
		ev, ok := s.history.oldest()
		if !ok || ev.KV.ModRevision > rev {
			break
		}
		s.history.dropOldest()
		s.forget(ev)
	}
	s.compacted = max(s.compacted, rev)
	return nil
}

// forget moves the compacted revision past a dropped event and prunes the
// versions of its key that no readable revision can see any more.
func (s *kv) forget(ev kvstore.Event) {
	s.compacted = max(s.compacted, ev.KV.ModRevision)
	r, ok := s.get(ev.KV.Key)
	if !ok {
		return
	}
	keep := 0
	for i, v := range r.versions {
		if v.rev <= s.compacted {
			keep = i
		}
	}
	r.versions = r.versions[keep:]
	// A tombstone at or below the compacted revision hides nothing.
	if r.versions[0].value == nil && r.versions[0].rev <= s.compacted {
		r.versions = r.versions[1:]
	}
	if len(r.versions) == 0 {
		s.tree.Delete(r)
	}
}

func (s *kv) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for w := range s.watchers {
		s.removeWatcher(w)
	}
}
