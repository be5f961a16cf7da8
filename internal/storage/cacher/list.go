package cacher

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/google/btree"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage"
)

// readMode says where a read is served and how fresh it must be.
type readMode int

const (
	readFromStorage readMode = iota // exact revisions
	readConsistent                  // "": as fresh as storage now
	readAny                         // "0": whatever the cache has
	readAtLeast                     // N: not older than N
	readContinue                    // a continued page: at the token's revision
)

// listMode classifies a list request.
func (c *Cacher) listMode(opts storage.ListOptions) (readMode, uint64, error) {
	if opts.Recursive && opts.Predicate.Continue != "" {
		return readContinue, 0, nil
	}
	if opts.ResourceVersion == "" {
		return readConsistent, 0, nil
	}
	rv, err := c.versioner.ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return 0, 0, err
	}
	switch opts.ResourceVersionMatch {
	case metav1.ResourceVersionMatchNotOlderThan:
	case "":
		// Legacy: a paged list at an explicit revision reads at it.
		if rv != 0 && opts.Recursive && opts.Predicate.Limit > 0 {
			return readFromStorage, 0, nil
		}
	default: // Exact, and unknown values storage rejects
		return readFromStorage, 0, nil
	}
	if rv == 0 {
		return readAny, 0, nil
	}
	return readAtLeast, rv, nil
}

// wait blocks until the cache may serve a read of mode; errUseStorage sends
// the read to storage.
func (c *Cacher) wait(ctx context.Context, key string, mode readMode, rv uint64) error {
	switch mode {
	case readFromStorage:
		return errUseStorage
	case readConsistent:
		return c.waitConsistent(ctx)
	case readAny:
		c.waitOwnWrites(ctx)
		return nil
	default:
		return c.waitAtLeast(ctx, key, rv)
	}
}

// GetList serves lists from the cache when their resourceVersion allows
// (see listMode), with the predicate, paging (Limit) and a continue token
// in etcd's format, at the cache's revision. A continued page is read from
// the cache's state at the token's revision while the cache still has it
// (continue.go), so pages of one list may come from the cache and from
// storage in any order.
func (c *Cacher) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	if err := c.checkKey(key); err != nil {
		return err
	}
	mode, rv, err := c.listMode(opts)
	if err != nil {
		return err
	}
	if mode == readContinue {
		err = c.listContinued(ctx, key, opts, listObj)
	} else if err = c.wait(ctx, key, mode, rv); err == nil {
		err = c.listFromCache(ctx, key, opts, listObj)
	}
	tooSlow := errors.Is(err, errTooSlow)
	// A consistent read counts when the cache took it on: served it,
	// failed it, or fell back to storage for being too slow (not when it
	// was not ready to try).
	counted := mode == readConsistent && (tooSlow || !errors.Is(err, errUseStorage))
	if errors.Is(err, errUseStorage) {
		err = c.storage.GetList(ctx, key, opts, listObj)
	}
	if counted {
		c.metrics.ConsistentRead(err == nil, tooSlow)
	}
	return err
}

// page is what a list collects from the cache.
type page struct {
	items     []runtime.Object
	from      []*item // the cache's items behind items, in order
	lastKey   string
	hasMore   bool
	remaining int64 // keys after the page, counted only when unfiltered
	rv        uint64
	// fetched objects were visited, evaluated of them tested against the
	// predicate (for the list metrics).
	fetched, evaluated int
}

func (c *Cacher) listFromCache(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	p, err := c.collect(key, opts)
	if errors.Is(err, errUseStorage) {
		return err
	}
	c.metrics.ObserveList(p.fetched, p.evaluated, len(p.items))
	if err != nil {
		return err
	}
	return c.fillList(ctx, key, opts, p, listObj)
}

// fillList puts a collected page into listObj with its revision, continue
// token and remaining count, as storage sets them, and tells a request
// that asked which cached object versions the items are.
func (c *Cacher) fillList(ctx context.Context, key string, opts storage.ListOptions, p page, listObj runtime.Object) error {
	if err := meta.SetList(listObj, p.items); err != nil {
		return err
	}
	if storage.WantsListSources(ctx) {
		encs := make([]*storage.ItemEncodings, len(p.from))
		for i, it := range p.from {
			encs[i] = it.encodings()
		}
		storage.RecordListSources(ctx, listObj, encs)
	}
	if !p.hasMore {
		return c.versioner.UpdateList(listObj, p.rv, "", nil)
	}
	keyPrefix := prefixKey(key)
	next, err := storage.EncodeContinue(p.lastKey+"\x00", keyPrefix, int64(p.rv))
	if err != nil {
		return err
	}
	var remaining *int64
	// Only an unfiltered page knows how many of the keys left would match.
	if opts.Predicate.Empty() {
		remaining = &p.remaining
	}
	return c.versioner.UpdateList(listObj, p.rv, next, remaining)
}

// collect reads the matching objects under the state's read lock.
func (c *Cacher) collect(key string, opts storage.ListOptions) (page, error) {
	c.state.mu.RLock()
	defer c.state.mu.RUnlock()
	if !c.state.ready {
		return page{}, errUseStorage
	}
	p := page{rv: c.state.rv}
	if !opts.Recursive {
		if it, ok := c.state.getLocked(key); ok {
			p.fetched, p.evaluated = 1, 1
			match, err := opts.Predicate.Matches(it.obj)
			if err != nil {
				return p, err
			}
			if match {
				p.items = append(p.items, it.obj)
				p.from = append(p.from, it)
			}
		}
		return p, nil
	}
	keyPrefix := prefixKey(key)
	err := collectRange(c.state.items, keyPrefix, keyPrefix, opts.Predicate, &p)
	return p, err
}

// collectRange adds to p the items of tree from key from on under prefix
// that pred selects, up to its limit, as a storage range read does.
func collectRange(tree *btree.BTreeG[*item], from, prefix string, pred storage.SelectionPredicate, p *page) error {
	limit := int(pred.Limit)
	var err error
	ascend(tree, from, prefix, func(it *item) bool {
		p.fetched++
		if limit > 0 && len(p.items) >= limit {
			p.hasMore = true
			// Keep walking only to count what is left for an unfiltered page.
			p.remaining++
			return pred.Empty()
		}
		var match bool
		p.evaluated++
		if match, err = pred.Matches(it.obj); err != nil {
			return false
		}
		p.lastKey = it.key
		if match {
			p.items = append(p.items, it.obj)
			p.from = append(p.from, it)
		}
		return true
	})
	return err
}

// Get serves resourceVersion "0" and N (once the cache has reached N) from
// the cache; "" reads storage.
func (c *Cacher) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	if opts.ResourceVersion == "" {
		return c.storage.Get(ctx, key, opts, out)
	}
	if err := c.checkKey(key); err != nil {
		return err
	}
	rv, err := c.versioner.ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return err
	}
	mode := readAtLeast
	if rv == 0 {
		mode = readAny
	}
	err = c.wait(ctx, key, mode, rv)
	if err == nil {
		err = c.getFromCache(key, opts, out)
	}
	if errors.Is(err, errUseStorage) {
		return c.storage.Get(ctx, key, opts, out)
	}
	return err
}

func (c *Cacher) getFromCache(key string, opts storage.GetOptions, out runtime.Object) error {
	c.state.mu.RLock()
	ready := c.state.ready
	it, found := c.state.getLocked(key)
	c.state.mu.RUnlock()
	switch {
	case !ready:
		return errUseStorage
	case !found && opts.IgnoreNotFound:
		return runtime.SetZeroValue(out)
	case !found:
		return storage.NewError(storage.ErrCodeKeyNotFound, key, 0, "")
	}
	return copyInto(out, it.obj.DeepCopyObject())
}

// copyInto stores obj (a pointer to a struct) in out, which must have the
// same type.
func copyInto(out, obj runtime.Object) error {
	dst, src := reflect.ValueOf(out), reflect.ValueOf(obj)
	if dst.Kind() != reflect.Pointer || dst.IsNil() || dst.Type() != src.Type() {
		return fmt.Errorf("cannot store a %T in a %T", obj, out)
	}
	dst.Elem().Set(src.Elem())
	return nil
}
