package etcd3

import (
	"context"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kapi-dev/kapi/internal/storage/kvstore"
)

// Limits of one batched transaction: etcd refuses a transaction with more
// than --max-txn-ops (default 128) compares or operations, and a request
// larger than --max-request-bytes (default 1.5 MiB).
const (
	maxBatchOps   = 100
	maxBatchBytes = 512 << 10
)

// CreateBatch lets the creates of a group of goroutines that write at the
// same time share etcd transactions: a create waits until every member of
// the group is waiting in one (or a transaction's worth is pending), and
// then all of them are committed together, so a server's bootstrap data
// costs a few raft commits (and fsyncs) instead of one per object.
//
// Objects committed together share a revision, and so a resourceVersion,
// which a watch resuming in the middle of that revision could not tell
// apart. Only writes no watch can see yet may be batched: the bootstrap
// seed, which runs before the server serves and before its watch caches
// list.
//
// Members Join before any of them starts (a member that starts while
// others have yet to join may find itself the whole group and commit
// alone) and each Leaves when it is done; creates
// under a context without the batch (WithCreateBatch), and writes other
// than creates, are not batched. A batch whose transaction fails (a key
// exists, or etcd refuses it) is retried one create at a time, so each
// gets its own answer.
type CreateBatch struct {
	mu      sync.Mutex
	members int
	waiting int // members waiting in a create, committed or not
	pending []*batchedCreate
	bytes   int
}

type batchedCreate struct {
	kv    *etcdKV
	key   string
	value []byte

	done chan struct{}
	rev  int64
	cur  *kvstore.KeyValue
	ok   bool
	err  error
}

type createBatchKey struct{}

// WithCreateBatch returns ctx carrying b: creates through etcd under it
// join b's transactions.
func WithCreateBatch(ctx context.Context, b *CreateBatch) context.Context {
	return context.WithValue(ctx, createBatchKey{}, b)
}

func createBatchFrom(ctx context.Context) *CreateBatch {
	b, _ := ctx.Value(createBatchKey{}).(*CreateBatch)
	return b
}

// Join adds n members: until they Leave, no batch is committed while one
// of them is not waiting in a create (unless a transaction's worth is
// pending).
func (b *CreateBatch) Join(n int) {
	b.mu.Lock()
	b.members += n
	b.mu.Unlock()
}

// Leave removes a member; the others' pending creates may be committed now.
func (b *CreateBatch) Leave(ctx context.Context) {
	b.mu.Lock()
	b.members--
	ready := b.takeReady()
	b.mu.Unlock()
	b.commit(ctx, ready)
}

// takeReady takes the pending creates when they are to be committed now.
// b.mu is held.
func (b *CreateBatch) takeReady() []*batchedCreate {
	if len(b.pending) == 0 {
		return nil
	}
	if b.waiting < b.members && len(b.pending) < maxBatchOps && b.bytes < maxBatchBytes {
		return nil
	}
	ready := b.pending
	b.pending, b.bytes = nil, 0
	return ready
}

// create adds a create to the batch and waits for its commit.
func (b *CreateBatch) create(ctx context.Context, kv *etcdKV, key string, value []byte) (int64, *kvstore.KeyValue, bool, error) {
	c := &batchedCreate{kv: kv, key: key, value: value, done: make(chan struct{})}
	b.mu.Lock()
	b.pending = append(b.pending, c)
	b.bytes += len(key) + len(value)
	b.waiting++
	ready := b.takeReady()
	b.mu.Unlock()
	b.commit(ctx, ready)
	<-c.done
	b.mu.Lock()
	b.waiting--
	b.mu.Unlock()
	return c.rev, c.cur, c.ok, c.err
}

// commit writes creates in transactions of at most maxBatchOps, each all
// or nothing, and answers every one of them.
func (b *CreateBatch) commit(ctx context.Context, creates []*batchedCreate) {
	// The creates are other members' too: the committer's cancellation
	// must not fail them.
	ctx = context.WithoutCancel(ctx)
	for len(creates) > 0 {
		n := min(len(creates), maxBatchOps)
		commitTogether(ctx, creates[:n])
		creates = creates[n:]
	}
}

func commitTogether(ctx context.Context, creates []*batchedCreate) {
	defer func() {
		for _, c := range creates {
			close(c.done)
		}
	}()
	if len(creates) > 1 {
		client := creates[0].kv.client
		cmps := make([]clientv3.Cmp, 0, len(creates))
		ops := make([]clientv3.Op, 0, len(creates))
		for _, c := range creates {
			if c.kv.client != client {
				client = nil
				break
			}
			full := c.kv.key(c.key)
			cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(full), "=", 0))
			ops = append(ops, opPut(full, c.value))
		}
		if client != nil {
			resp, err := client.Txn(ctx).If(cmps...).Then(ops...).Commit()
			if err == nil && resp.Succeeded {
				for _, c := range creates {
					c.rev, c.ok = resp.Header.Revision, true
				}
				return
			}
		}
	}
	// One at a time: a key that exists (or a refused transaction) gets
	// the answer a create alone would.
	for _, c := range creates {
		c.rev, c.cur, c.ok, c.err = c.kv.txn(ctx, c.key, 0, thenPut(c.value))
	}
}
