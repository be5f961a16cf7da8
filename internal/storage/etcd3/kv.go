package etcd3

import (
	"context"
	"errors"
	"sync"
	"unsafe"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/kvstore"
)

// etcdKV implements kvstore.KV with an etcd client, adding the key prefix
// on the way in and removing it on the way out.
type etcdKV struct {
	client    *clientv3.Client
	prefix    string
	wg        sync.WaitGroup // watch goroutines
	revisions revisionBatch
}

var _ kvstore.KV = (*etcdKV)(nil)

func (k *etcdKV) key(key string) string { return k.prefix + key }

// rangeEnd maps a kvstore range end to etcd; "\x00" (no upper bound)
// becomes the end of the prefix so reads never leave it.
func (k *etcdKV) rangeEnd(end string) string {
	if end == "\x00" && k.prefix != "" {
		return clientv3.GetPrefixRangeEnd(k.prefix)
	}
	return k.key(end)
}

func (k *etcdKV) fromEtcd(kv *mvccpb.KeyValue) kvstore.KeyValue {
	return kvstore.KeyValue{Key: string(kv.Key[len(k.prefix):]), Value: kv.Value, ModRevision: kv.ModRevision}
}

func (k *etcdKV) Range(ctx context.Context, key, end string, rev, limit int64) (kvstore.RangeResult, error) {
	var opts []clientv3.OpOption
	if rev > 0 {
		opts = append(opts, clientv3.WithRev(rev))
	}
	return k.get(ctx, key, end, rev, limit, opts...)
}

// RangeKeys is Range at the latest revision without the values.
func (k *etcdKV) RangeKeys(ctx context.Context, key, end string, limit int64) (kvstore.RangeResult, error) {
	return k.get(ctx, key, end, 0, limit, clientv3.WithKeysOnly())
}

// get is a range read of [key, end) (key alone when end is empty), at
// most limit keys, with opts added; rev names the revision read in errors.
func (k *etcdKV) get(ctx context.Context, key, end string, rev, limit int64, opts ...clientv3.OpOption) (kvstore.RangeResult, error) {
	if end != "" {
		opts = append(opts, clientv3.WithRange(k.rangeEnd(end)))
	}
	if limit > 0 {
		opts = append(opts, clientv3.WithLimit(limit))
	}
	resp, err := k.client.Get(ctx, k.key(key), opts...)
	if err != nil {
		return kvstore.RangeResult{}, withRevision(translate(err, key), rev)
	}
	res := kvstore.RangeResult{Count: resp.Count, More: resp.More, Revision: resp.Header.Revision}
	res.KVs = make([]kvstore.KeyValue, len(resp.Kvs))
	for i, kv := range resp.Kvs {
		res.KVs[i] = k.fromEtcd(kv)
	}
	return res, nil
}

func (k *etcdKV) Count(ctx context.Context, key, end string) (int64, error) {
	resp, err := k.client.Get(ctx, k.key(key), clientv3.WithRange(k.rangeEnd(end)), clientv3.WithCountOnly())
	if err != nil {
		return 0, translate(err, key)
	}
	return resp.Count, nil
}

// Revision reads one key that never holds data (the prefix itself) so the
// answer costs etcd nothing but carries the current revision; callers
// asking at the same time share reads (revisionBatch).
func (k *etcdKV) Revision(ctx context.Context) (int64, error) {
	return k.revisions.get(ctx, k.readRevision)
}

func (k *etcdKV) readRevision(ctx context.Context) (int64, error) {
	key := k.prefix
	if key == "" {
		key = "/"
	}
	resp, err := k.client.Get(ctx, key, clientv3.WithCountOnly())
	if err != nil {
		return 0, translate(err, "")
	}
	return resp.Header.Revision, nil
}

func (k *etcdKV) Put(ctx context.Context, key string, value []byte, expected int64) (int64, *kvstore.KeyValue, bool, error) {
	if expected == 0 {
		if b := createBatchFrom(ctx); b != nil {
			return b.create(ctx, k, key, value)
		}
	}
	return k.txn(ctx, key, expected, opPut(k.key(key), value))
}

// opPut is clientv3.OpPut without a copy of value: OpPut copies its value
// string into the Op's own bytes, so the string may borrow value's for the
// call (a value is written once, and a create's is ~1 KiB).
func opPut(key string, value []byte) clientv3.Op {
	return clientv3.OpPut(key, unsafe.String(unsafe.SliceData(value), len(value)))
}

func (k *etcdKV) Delete(ctx context.Context, key string, expected int64) (int64, *kvstore.KeyValue, bool, error) {
	return k.txn(ctx, key, expected, clientv3.OpDelete(k.key(key)))
}

// txn runs op if key's ModRevision is expected, else reads the current value.
func (k *etcdKV) txn(ctx context.Context, key string, expected int64, op clientv3.Op) (int64, *kvstore.KeyValue, bool, error) {
	full := k.key(key)
	resp, err := k.client.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(full), "=", expected)).
		Then(op).
		Else(clientv3.OpGet(full)).
		Commit()
	if err != nil {
		return 0, nil, false, translate(err, key)
	}
	if resp.Succeeded {
		// Deleting a missing key "succeeds" in etcd without a write.
		if del := resp.Responses[0].GetResponseDeleteRange(); del != nil && del.Deleted == 0 {
			return 0, nil, false, nil
		}
		return resp.Header.Revision, nil, true, nil
	}
	get := resp.Responses[0].GetResponseRange()
	if get == nil || len(get.Kvs) == 0 {
		return 0, nil, false, nil
	}
	cur := k.fromEtcd(get.Kvs[0])
	return 0, &cur, false, nil
}

// withRevision names the revision a read asked for in a "future revision"
// error, which etcd does not: the client is told which one it was.
func withRevision(err error, rev int64) error {
	var se *storage.Error
	if errors.As(err, &se) && se.Code == storage.ErrCodeTooLargeResourceVersion && se.ResourceVersion == 0 {
		se.ResourceVersion = rev
	}
	return err
}

// translate turns etcd client errors into storage errors where a code fits.
func translate(err error, key string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, rpctypes.ErrCompacted):
		return &storage.Error{Code: storage.ErrCodeExpired, Key: key, Err: err}
	case errors.Is(err, rpctypes.ErrFutureRev):
		return &storage.Error{Code: storage.ErrCodeTooLargeResourceVersion, Key: key, Err: err}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case status.Code(err) == codes.Unavailable, errors.Is(err, rpctypes.ErrNoLeader), errors.Is(err, rpctypes.ErrTimeout):
		return &storage.Error{Code: storage.ErrCodeUnreachable, Key: key, Err: err}
	}
	return newEtcdError(err)
}
