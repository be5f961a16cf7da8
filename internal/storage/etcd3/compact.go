package etcd3

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// compactRevKey is the key through which API servers sharing one etcd take
// turns compacting. It is kube-apiserver's key, outside any prefix, so kapi
// and kube-apiserver on the same etcd take turns with each other too. Its
// value is the revision the last turn compacted to; its version counts the
// turns and serves as the protocol's clock.
const compactRevKey = "compact_rev_key"

// StartCompactor compacts etcd's history every interval, keeping about one
// interval of it: each turn compacts to the revision that was current one
// interval earlier, so watches and lists at a resourceVersion up to one
// interval old still work. Several API servers can each run a compactor on
// the same etcd: they coordinate through compactRevKey so that one of them
// compacts per interval, and another takes over within two intervals when
// it stops. An interval of 0 disables compaction.
//
// The compactor runs until ctx ends or stop is called; stop waits for it to
// finish and may be called more than once. A nil logger discards.
func StartCompactor(ctx context.Context, client *clientv3.Client, interval time.Duration, logger *slog.Logger) (stop func()) {
	if interval <= 0 {
		return func() {}
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	c := &compactor{client: client, logger: logger}
	go func() {
		defer close(done)
		c.run(ctx, interval)
	}()
	var once sync.Once
	return func() {
		once.Do(cancel)
		<-done
	}
}

// compactor is one participant in the compaction protocol. Between turns it
// remembers the version of compactRevKey it last saw and etcd's revision at
// that moment.
type compactor struct {
	client  *clientv3.Client
	logger  *slog.Logger
	version int64 // of compactRevKey as last seen; 0 while it does not exist
	rev     int64 // etcd's revision when version was seen; 0 before the first turn
}

func (c *compactor) run(ctx context.Context, interval time.Duration) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		compacted, err := c.turn(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			c.logger.Error("etcd compaction failed", "endpoints", c.client.Endpoints(), "err", err)
		case compacted != 0:
			c.logger.Debug("etcd compacted", "revision", compacted)
		}
	}
}

// turn runs one round of the protocol and returns the revision it compacted
// to, or 0 when it did not compact.
//
// If compactRevKey still has the version this compactor saw last time, no
// one has compacted since, and the turn is this compactor's: in one
// transaction it writes the revision it saw last time to the key (bumping
// the version), then compacts to that revision, which is one interval old.
// Otherwise another compactor took the turn; this one learns the new
// version and tries again next time, when it wins only if the other has
// stopped taking turns. Either way it remembers the current revision for
// its next turn. The first turn never compacts: it has no revision from an
// interval ago.
func (c *compactor) turn(ctx context.Context) (int64, error) {
	resp, err := c.client.Txn(ctx).If(
		clientv3.Compare(clientv3.Version(compactRevKey), "=", c.version),
	).Then(
		clientv3.OpPut(compactRevKey, strconv.FormatInt(c.rev, 10)),
	).Else(
		clientv3.OpGet(compactRevKey),
	).Commit()
	if err != nil {
		return 0, err
	}
	target := c.rev
	c.rev = resp.Header.Revision
	if !resp.Succeeded {
		c.version = 0
		if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) > 0 {
			c.version = kvs[0].Version
		}
		return 0, nil
	}
	c.version++
	if target == 0 {
		return 0, nil
	}
	// Someone compacted further already (etcdctl, a test): nothing to do.
	if _, err := c.client.Compact(ctx, target); err != nil && !errors.Is(err, rpctypes.ErrCompacted) {
		return 0, fmt.Errorf("compacting to revision %d: %w", target, err)
	}
	return target, nil
}
