package etcd3

import (
	"context"
	"errors"
	"math"
	"sync"
	"unsafe"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
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
	return k.txn(ctx, key, expected, thenPut(value))
}

// thenPut is a transaction's put of value at the key (the request borrows
// value for the call).
func thenPut(value []byte) func(full []byte) *etcdserverpb.RequestOp {
	return func(full []byte) *etcdserverpb.RequestOp {
		return &etcdserverpb.RequestOp{Request: &etcdserverpb.RequestOp_RequestPut{
			RequestPut: &etcdserverpb.PutRequest{Key: full, Value: value}}}
	}
}

// thenDelete is a transaction's delete of the key.
func thenDelete(full []byte) *etcdserverpb.RequestOp {
	return &etcdserverpb.RequestOp{Request: &etcdserverpb.RequestOp_RequestDeleteRange{
		RequestDeleteRange: &etcdserverpb.DeleteRangeRequest{Key: full}}}
}

// opPut is clientv3.OpPut without a copy of value: OpPut copies its value
// string into the Op's own bytes, so the string may borrow value's for the
// call (a value is written once, and a create's is ~1 KiB).
func opPut(key string, value []byte) clientv3.Op {
	return clientv3.OpPut(key, unsafe.String(unsafe.SliceData(value), len(value)))
}

func (k *etcdKV) Delete(ctx context.Context, key string, expected int64) (int64, *kvstore.KeyValue, bool, error) {
	return k.txn(ctx, key, expected, thenDelete)
}

// txnCallOptions are the etcd client's own defaults for a call
// (clientv3.Config leaves them unset here).
var txnCallOptions = []grpc.CallOption{
	grpc.WaitForReady(true),
	grpc.MaxCallSendMsgSize(2 << 20),
	grpc.MaxCallRecvMsgSize(math.MaxInt32),
}

// txn runs the write then makes of the full key when key's ModRevision is
// expected, and otherwise reads the current value. The request is etcd's
// protobuf message, sent on the client's connection (so through its retry
// and auth interceptors, as the client's Txn is): the client's Op and Cmp
// builders would copy the key, and a put's value, into bytes of their own
// and then into that same message.
func (k *etcdKV) txn(ctx context.Context, key string, expected int64, then func(full []byte) *etcdserverpb.RequestOp) (int64, *kvstore.KeyValue, bool, error) {
	full := []byte(k.key(key))
	req := &etcdserverpb.TxnRequest{
		Compare: []*etcdserverpb.Compare{{
			Key: full, Target: etcdserverpb.Compare_MOD, Result: etcdserverpb.Compare_EQUAL,
			TargetUnion: &etcdserverpb.Compare_ModRevision{ModRevision: expected},
		}},
		Success: []*etcdserverpb.RequestOp{then(full)},
		Failure: []*etcdserverpb.RequestOp{{Request: &etcdserverpb.RequestOp_RequestRange{
			RequestRange: &etcdserverpb.RangeRequest{Key: full}}}},
	}
	resp, err := etcdserverpb.NewKVClient(k.client.ActiveConnection()).Txn(ctx, req, txnCallOptions...)
	if err != nil {
		return 0, nil, false, translate(clientv3.ContextError(ctx, err), key)
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
