package etcd3

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/storage/kvstore"
	"github.com/kapi-dev/kapi/internal/storage/metrics"
)

// instrumentedKV records each etcd request of one resource under the
// operation names kube-apiserver uses.
type instrumentedKV struct {
	kvstore.KV
	metrics  *metrics.Metrics
	resource schema.GroupResource
}

func (k *instrumentedKV) Range(ctx context.Context, key, end string, rev, limit int64) (kvstore.RangeResult, error) {
	op := "list"
	if end == "" {
		op = "get"
	}
	start := time.Now()
	res, err := k.KV.Range(ctx, key, end, rev, limit)
	k.metrics.RecordRequest(op, k.resource, start, err)
	return res, err
}

func (k *instrumentedKV) Count(ctx context.Context, key, end string) (int64, error) {
	start := time.Now()
	n, err := k.KV.Count(ctx, key, end)
	k.metrics.RecordRequest("listWithCount", k.resource, start, err)
	return n, err
}

func (k *instrumentedKV) Revision(ctx context.Context) (int64, error) {
	start := time.Now()
	rev, err := k.KV.Revision(ctx)
	k.metrics.RecordRequest("getCurrentResourceVersion", k.resource, start, err)
	return rev, err
}

func (k *instrumentedKV) Put(ctx context.Context, key string, value []byte, expected int64) (int64, *kvstore.KeyValue, bool, error) {
	op := "update"
	if expected == 0 {
		op = "create"
	}
	start := time.Now()
	rev, cur, ok, err := k.KV.Put(ctx, key, value, expected)
	k.metrics.RecordRequest(op, k.resource, start, err)
	return rev, cur, ok, err
}

func (k *instrumentedKV) Delete(ctx context.Context, key string, expected int64) (int64, *kvstore.KeyValue, bool, error) {
	start := time.Now()
	rev, cur, ok, err := k.KV.Delete(ctx, key, expected)
	k.metrics.RecordRequest("delete", k.resource, start, err)
	return rev, cur, ok, err
}
