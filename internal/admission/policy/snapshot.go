package policy

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/tools/cache"
)

// ErrNotReady is returned while the policy informers have not listed yet.
var ErrNotReady = errors.New("not yet ready to handle request")

// Snapshot is the snapshot of hooks the validating and mutating policy
// plugins share: any event of the watched informers marks it dirty, and
// the first request after that rebuilds it (one builder at a time), so a
// burst of changes costs one rebuild.
type Snapshot[H any] struct {
	// ReadyWait bounds how long a request waits for the first lists.
	ReadyWait time.Duration

	hasSynced []cache.InformerSynced
	dirty     atomic.Bool
	snap      atomic.Pointer[[]H]
	mu        sync.Mutex
}

// Watch registers the snapshot on the informers.
func (s *Snapshot[H]) Watch(infs ...cache.SharedIndexInformer) error {
	s.dirty.Store(true)
	h := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { s.dirty.Store(true) },
		UpdateFunc: func(any, any) { s.dirty.Store(true) },
		DeleteFunc: func(any) { s.dirty.Store(true) },
	}
	for _, inf := range infs {
		reg, err := inf.AddEventHandler(h)
		if err != nil {
			return err
		}
		s.hasSynced = append(s.hasSynced, reg.HasSynced)
	}
	return nil
}

// Get returns the current snapshot, rebuilding it with build when it is
// dirty; it waits (up to ReadyWait) for the informers' first lists. build
// runs under the snapshot's lock.
func (s *Snapshot[H]) Get(ctx context.Context, build func() ([]H, error)) ([]H, error) {
	if !s.dirty.Load() {
		if h := s.snap.Load(); h != nil {
			return *h, nil
		}
	}
	if !s.synced() {
		wctx, cancel := context.WithTimeout(ctx, s.ReadyWait)
		ok := cache.WaitForCacheSync(wctx.Done(), s.hasSynced...)
		cancel()
		if !ok {
			return nil, ErrNotReady
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dirty.Swap(false) || s.snap.Load() == nil {
		h, err := build()
		if err != nil {
			s.dirty.Store(true)
			return nil, err
		}
		s.snap.Store(&h)
	}
	return *s.snap.Load(), nil
}

func (s *Snapshot[H]) synced() bool {
	for _, f := range s.hasSynced {
		if !f() {
			return false
		}
	}
	return true
}
