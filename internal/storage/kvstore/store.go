package kvstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/metrics"
	"github.com/kapi-dev/kapi/internal/storage/value"
)

// store is the storage.Interface of one resource.
type store struct {
	backend        *Backend
	kv             KV
	codec          runtime.Codec
	newFunc        func() runtime.Object
	resourcePrefix string // without trailing "/"
	versioner      storage.Versioner
	logger         *slog.Logger
	// transformer, when not nil, transforms values on their way to and
	// from kv; dataKeyPrefix + key is what a value is bound to.
	transformer   value.Transformer
	dataKeyPrefix string
	// metrics records lists and watch events; nil records nothing.
	metrics *metrics.Store
}

var _ storage.Interface = (*store)(nil)

func (s *store) Versioner() storage.Versioner { return s.versioner }

// checkKey rejects keys outside the resource's folder.
func (s *store) checkKey(key string) error { return storage.CheckKey(key, s.resourcePrefix) }

// prefixKey returns the range prefix for a recursive read of key.
func prefixKey(key string) string {
	if strings.HasSuffix(key, "/") {
		return key
	}
	return key + "/"
}

// decodeInto decodes stored bytes into obj and stamps rev as its
// resourceVersion.
func (s *store) decodeInto(key string, data []byte, obj runtime.Object, rev int64) error {
	if err := runtime.DecodeInto(s.codec, data, obj); err != nil {
		return &storage.Error{Code: storage.ErrCodeInvalidObj, Key: key, Message: "cannot decode stored object", Err: err}
	}
	return s.versioner.UpdateObject(obj, uint64(rev))
}

// decodeNew decodes a value as read from the KV into a fresh object of the
// resource's kind.
func (s *store) decodeNew(ctx context.Context, key string, stored []byte, rev int64) (runtime.Object, error) {
	data, _, err := s.fromStorage(ctx, key, stored)
	if err != nil {
		return nil, err
	}
	obj, _, err := s.codec.Decode(data, nil, s.newFunc())
	if err != nil {
		return nil, &storage.Error{Code: storage.ErrCodeInvalidObj, Key: key, Message: "cannot decode stored object", Err: err}
	}
	if err := s.versioner.UpdateObject(obj, uint64(rev)); err != nil {
		return nil, err
	}
	return obj, nil
}

// checkMinimumRV fails when a request asks for a resourceVersion newer than
// the store has reached ("" and "0" ask for nothing).
func (s *store) checkMinimumRV(key, minimum string, current int64) error {
	if minimum == "" {
		return nil
	}
	rv, err := s.versioner.ParseResourceVersion(minimum)
	if err != nil {
		return err
	}
	if rv > uint64(current) {
		return storage.NewError(storage.ErrCodeTooLargeResourceVersion, key, int64(rv),
			fmt.Sprintf("Too large resource version: %d, current: %d", rv, current))
	}
	return nil
}

// Count returns the number of objects under key.
func (s *store) Count(ctx context.Context, key string) (int64, error) {
	if err := s.checkKey(key); err != nil {
		return 0, err
	}
	prefix := prefixKey(key)
	return s.kv.Count(ctx, prefix, PrefixEnd(prefix))
}

// CurrentResourceVersion returns the KV's latest revision.
func (s *store) CurrentResourceVersion(ctx context.Context) (uint64, error) {
	rev, err := s.kv.Revision(ctx)
	if err != nil {
		return 0, err
	}
	return uint64(rev), nil
}

// RequestWatchProgress forwards a progress request to the KV.
func (s *store) RequestWatchProgress(ctx context.Context) error {
	return s.kv.RequestProgress(ctx)
}

func asStorageError(err error, target **storage.Error) bool { return errors.As(err, target) }
