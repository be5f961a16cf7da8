package kvstore

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage"
)

// Get reads the latest value of key. Every read is a fresh (quorum) read, so
// a requested resourceVersion only has to be not newer than the store.
func (s *store) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	if err := s.checkKey(key); err != nil {
		return err
	}
	res, err := s.kv.Range(ctx, key, "", 0, 0)
	if err != nil {
		return err
	}
	if err := s.checkMinimumRV(key, opts.ResourceVersion, res.Revision); err != nil {
		return err
	}
	if len(res.KVs) == 0 {
		if opts.IgnoreNotFound {
			return runtime.SetZeroValue(out)
		}
		return storage.NewError(storage.ErrCodeKeyNotFound, key, 0, "")
	}
	kv := res.KVs[0]
	data, _, err := s.fromStorage(ctx, key, kv.Value)
	if err != nil {
		return err
	}
	return s.decodeInto(key, data, out, kv.ModRevision)
}
