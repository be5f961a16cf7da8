package cacher

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage"
)

// listContinued serves a continued page of a list from the cache's state
// at the token's revision, with the items, continue token and remaining
// count storage would return for it. errUseStorage sends the page to
// storage: a token it must reject or read at the latest revision (a
// resourceVersion besides the token, a malformed or negative one), a
// revision older than the cache's history (storage serves it, or reports
// 410 Expired when it compacted it), or a cache that cannot reach the
// revision in time.
func (c *Cacher) listContinued(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
		return errUseStorage
	}
	keyPrefix := prefixKey(key)
	from, tokenRV, err := storage.DecodeContinue(opts.Predicate.Continue, keyPrefix)
	if err != nil || tokenRV <= 0 {
		return errUseStorage
	}
	rv := uint64(tokenRV)
	// A token from storage may be ahead of the cache: wait, as a read at
	// "not older than" does.
	if _, err := c.waitForRV(ctx, rv); err != nil {
		if errors.Is(err, errWaitTimeout) {
			return errUseStorage
		}
		return err
	}
	c.state.mu.RLock()
	tree, ok := c.state.snapshotLocked(rv)
	ok = ok && c.state.ready
	c.state.mu.RUnlock()
	if !ok {
		return errUseStorage
	}
	// The snapshot is never written: it is read without the lock.
	p := page{rv: rv}
	err = collectRange(tree, from, keyPrefix, opts.Predicate, &p)
	c.metrics.ObserveList(p.fetched, p.evaluated, len(p.items))
	if err != nil {
		return err
	}
	return c.fillList(ctx, key, opts, p, listObj)
}
