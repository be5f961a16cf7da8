package kvstore

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage"
)

// Create writes obj at key when the key is free.
func (s *store) Create(ctx context.Context, key string, obj, out runtime.Object) error {
	if err := s.checkKey(key); err != nil {
		return err
	}
	if rv, err := s.versioner.ObjectResourceVersion(obj); err != nil || rv != 0 {
		return storage.NewError(storage.ErrCodeInvalidObj, key, 0, "resourceVersion should not be set on objects to be created")
	}
	if err := s.versioner.PrepareObjectForStorage(obj); err != nil {
		return err
	}
	data, err := encode(s.codec, obj)
	if err != nil {
		return &storage.Error{Code: storage.ErrCodeInvalidObj, Key: key, Message: "cannot encode object", Err: err}
	}
	stored, err := s.toStorage(ctx, key, data)
	if err != nil {
		return err
	}
	rev, _, ok, err := s.kv.Put(ctx, key, stored, 0)
	if err != nil {
		return err
	}
	if !ok {
		return storage.NewError(storage.ErrCodeKeyExists, key, 0, "")
	}
	if out == nil {
		return nil
	}
	return s.decodeInto(key, data, out, rev)
}
