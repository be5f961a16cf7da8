// Package fanout lets many event handlers share one registration on a
// client-go shared informer.
//
// client-go gives every AddEventHandler a listener of its own: two
// goroutines and a notification buffer that starts at 1024 entries
// (16 KiB) and never shrinks below that. A server running all of
// kube-controller-manager's controllers adds over a hundred handlers to
// some sixty informers, and on an idle server those listeners are a good
// part of what the controllers cost. An Informer wraps a shared informer
// so that the handlers added through it are called from one client-go
// handler.
//
// What client-go promises a handler is kept:
//   - a handler added while the informer runs first sees every object as
//     an add (isInInitialList true), then the changes after them. The
//     replay is made of what this fan-out has delivered so far, not of the
//     informer's store (which runs ahead of its handlers), so a handler
//     never sees a change twice or an object go back in time;
//   - a registration's HasSynced is true once the informer synced and its
//     handler saw the initial list;
//   - after RemoveEventHandler the handler is not called again (a call
//     already under way may finish).
//
// What changes: the handlers of one informer are called one after the
// other from one goroutine, so a slow handler delays the others. Add only
// handlers that return promptly (enqueue a key, set a flag, update an
// in-memory index), and that never add or remove a handler of the same
// informer from inside a call: every kapi handler is such. A handler that
// asks for a resync period or options goes to client-go's own
// registration, unchanged.
package fanout

import (
	"fmt"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/tools/cache"
)

// Informer is a shared informer whose AddEventHandler handlers share one
// client-go registration. Everything else is the wrapped informer's.
type Informer struct {
	cache.SharedIndexInformer

	mu sync.Mutex
	// reg is the one registration underneath, made by the first handler.
	reg cache.ResourceEventHandlerRegistration
	// objs are the objects as the handlers have seen them so far, by the
	// informer's key: what a handler added later is replayed.
	objs map[string]any
	// handlers are called in order for each notification. The slice is
	// replaced, never changed in place, so a delivery reads it once under
	// mu and calls the handlers without holding mu.
	handlers []*registration
}

var _ cache.SharedIndexInformer = (*Informer)(nil)

// New wraps inf. Wrap each shared informer once (see Set): two wrappers of
// one informer each hold a registration.
func New(inf cache.SharedIndexInformer) *Informer {
	return &Informer{SharedIndexInformer: inf}
}

// registration is one handler added through the fan-out.
type registration struct {
	parent  *Informer
	handler cache.ResourceEventHandler
	removed atomic.Bool
}

func (r *registration) HasSynced() bool { return r.parent.reg.HasSynced() }

func (r *registration) HasSyncedChecker() cache.DoneChecker { return r.parent.reg.HasSyncedChecker() }

// AddEventHandler adds h to the handlers the fan-out calls; the first
// one registers the fan-out itself on the informer. If the informer has
// objects already, h sees them as adds before it returns.
func (f *Informer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.SharedIndexInformer.IsStopped() {
		return nil, fmt.Errorf("handler %v was not added to shared informer because it has stopped already", h)
	}
	if f.reg == nil {
		f.objs = map[string]any{}
		// client-go queues the objects it holds for this registration and
		// delivers them through it; objs is empty until it does.
		reg, err := f.SharedIndexInformer.AddEventHandler(delivery{f})
		if err != nil {
			return nil, err
		}
		f.reg = reg
	}
	r := &registration{parent: f, handler: h}
	// Under mu no delivery updates objs: the replay and the deliveries
	// that follow it make one history.
	for _, obj := range f.objs {
		h.OnAdd(obj, true)
	}
	f.handlers = append(f.handlers[:len(f.handlers):len(f.handlers)], r)
	return r, nil
}

// RemoveEventHandler removes a handler added through the fan-out (the
// fan-out's own registration stays), or passes handle on.
func (f *Informer) RemoveEventHandler(handle cache.ResourceEventHandlerRegistration) error {
	r, ok := handle.(*registration)
	if !ok || r.parent != f {
		return f.SharedIndexInformer.RemoveEventHandler(handle)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	r.removed.Store(true)
	kept := make([]*registration, 0, len(f.handlers))
	for _, h := range f.handlers {
		if h != r {
			kept = append(kept, h)
		}
	}
	f.handlers = kept
	return nil
}

// record applies one notification to objs and returns the handlers to
// call with it.
func (f *Informer) record(obj any, deleted bool) []*registration {
	f.mu.Lock()
	defer f.mu.Unlock()
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		if deleted {
			delete(f.objs, key)
		} else {
			f.objs[key] = obj
		}
	}
	return f.handlers
}

// delivery is the fan-out's one handler on the informer.
type delivery struct{ f *Informer }

func (d delivery) OnAdd(obj any, isInInitialList bool) {
	for _, r := range d.f.record(obj, false) {
		if !r.removed.Load() {
			r.handler.OnAdd(obj, isInInitialList)
		}
	}
}

func (d delivery) OnUpdate(oldObj, newObj any) {
	for _, r := range d.f.record(newObj, false) {
		if !r.removed.Load() {
			r.handler.OnUpdate(oldObj, newObj)
		}
	}
}

func (d delivery) OnDelete(obj any) {
	for _, r := range d.f.record(obj, true) {
		if !r.removed.Load() {
			r.handler.OnDelete(obj)
		}
	}
}

// Set hands out one Informer per shared informer, so that every part
// asking for an informer's fan-out gets the same one.
type Set struct {
	mu sync.Mutex
	// m is keyed by the informer's indexer: client-go hands out a new
	// typed wrapper of one informer at each call of some accessors (the
	// factory's ForResource), but its indexer is always the same.
	m map[cache.Indexer]*Informer
}

// Wrap returns inf's Informer, made on first use.
func (s *Set) Wrap(inf cache.SharedIndexInformer) *Informer {
	if f, ok := inf.(*Informer); ok {
		return f
	}
	key := inf.GetIndexer()
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.m[key]; ok {
		return f
	}
	if s.m == nil {
		s.m = map[cache.Indexer]*Informer{}
	}
	f := New(inf)
	s.m[key] = f
	return f
}
