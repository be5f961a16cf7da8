package cacher

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage/kvstore"
)

// A cache whose first list is deferred (Backend.DeferInitialSync) records
// the objects created through it meanwhile. When its first list is let go,
// the Backend reads every key of the store once, without values, and a
// cache whose folder holds exactly the keys it recorded, at the revisions
// it recorded, starts from those objects at that read's revision instead
// of listing: on a fresh server that is every cache (the bootstrap data
// is created through them, the rest are empty), which saves some 60 range
// reads, and decoding all the bootstrap data again, on the path to
// serving. Any other write through the cache meanwhile, or any key the
// cache did not record, makes it list as before.

// maxPrimeKeys bounds the one key read: a store with more keys than this
// is not fresh, and its caches list.
const maxPrimeKeys = 20000

// keyLister is an inner backend that can read all its keys at once.
type keyLister interface {
	Keys(ctx context.Context, limit int64) (kvstore.KeySnapshot, bool, error)
}

// firstWrites is what a deferred cache saw written through it.
type firstWrites struct {
	mu        sync.Mutex
	recording bool
	created   map[string]*item
	other     bool // a write other than a create, or a create seen twice
	// primed, once set, is the state the first list starts from.
	primed   []*item
	primedRV uint64
	isPrimed bool
}

// noteCreate records a create's result: out is the object as the store
// decoded it from what it wrote, which is what a list would return; the
// cache keeps its own copy, since the caller owns out.
func (c *Cacher) noteCreate(out runtime.Object) {
	w := &c.first
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.recording {
		return
	}
	key, err := c.keyOf(out)
	if err != nil {
		w.other = true
		return
	}
	if _, dup := w.created[key]; dup {
		w.other = true
		return
	}
	w.created[key] = &item{key: key, obj: out.DeepCopyObject()}
}

// noteOtherWrite spoils the record: the cache must list.
func (c *Cacher) noteOtherWrite() {
	w := &c.first
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.recording {
		w.other = true
	}
}

// stopRecording ends the record and returns it; nil when it is spoilt.
func (c *Cacher) stopRecording() map[string]*item {
	w := &c.first
	w.mu.Lock()
	defer w.mu.Unlock()
	created, spoilt := w.created, w.other || !w.recording
	w.recording, w.created = false, nil
	if spoilt {
		return nil
	}
	return created
}

// primeFrom sets the first list's result when the cache's folder in snap
// holds exactly the created objects, each at its revision.
func (c *Cacher) primeFrom(snap *kvstore.KeySnapshot, created map[string]*item) bool {
	keys := snap.Under(c.prefix)
	if len(keys) != len(created) {
		return false
	}
	items := make([]*item, 0, len(keys))
	for _, k := range keys {
		it, ok := created[k.Key]
		if !ok {
			return false
		}
		rv, err := c.versioner.ObjectResourceVersion(it.obj)
		if err != nil || rv != uint64(k.ModRevision) {
			return false
		}
		items = append(items, it)
	}
	w := &c.first
	w.mu.Lock()
	w.primed, w.primedRV, w.isPrimed = items, uint64(snap.Revision), true
	w.mu.Unlock()
	return true
}

// takePrimed returns the primed first list once; ok is false when there
// is none (list instead).
func (c *Cacher) takePrimed() (items []*item, rv uint64, ok bool) {
	w := &c.first
	w.mu.Lock()
	defer w.mu.Unlock()
	items, rv, ok = w.primed, w.primedRV, w.isPrimed
	w.primed, w.isPrimed = nil, false
	return items, rv, ok
}

// primeCaches starts what caches it can from their recorded creates (see
// above); the others list.
func (b *Backend) primeCaches(ctx context.Context, caches []*Cacher) {
	records := make([]map[string]*item, len(caches))
	for i, c := range caches {
		records[i] = c.stopRecording()
	}
	kl, ok := b.inner.(keyLister)
	if !ok {
		return
	}
	snap, ok, err := kl.Keys(ctx, maxPrimeKeys)
	if err != nil || !ok {
		b.logger.Debug("watch caches list: the store's keys were not read", "err", err)
		return
	}
	primed := 0
	for i, c := range caches {
		if records[i] != nil && c.primeFrom(&snap, records[i]) {
			primed++
		}
	}
	b.logger.Debug("watch caches primed from their creates", "primed", primed, "caches", len(caches), "revision", snap.Revision)
}
