package kvstore

import (
	"context"
	"fmt"

	"github.com/kapi-dev/kapi/internal/storage/value"
)

// A resource's transformer (encryption at rest) sits between the codec and
// the KV: values are transformed after encoding and untransformed before
// decoding, and nowhere else. Each value is bound to its full key in the
// KV, the same authenticated data kube-apiserver uses, so stored values
// stay interchangeable with it.

// authenticatedData is what a value at key is bound to.
func (s *store) authenticatedData(key string) value.Context {
	return value.DefaultContext(s.dataKeyPrefix + key)
}

// toStorage transforms an encoded object for writing at key.
func (s *store) toStorage(ctx context.Context, key string, data []byte) ([]byte, error) {
	if s.transformer == nil {
		return data, nil
	}
	out, err := s.transformer.TransformToStorage(ctx, data, s.authenticatedData(key))
	if err != nil {
		return nil, fmt.Errorf("unable to transform key %q: %w", s.dataKeyPrefix+key, err)
	}
	return out, nil
}

// fromStorage undoes toStorage on a value read at key. stale reports a
// value written with a key or provider that is no longer the first, which
// an update rewrites even when the object did not change.
func (s *store) fromStorage(ctx context.Context, key string, data []byte) (out []byte, stale bool, err error) {
	if s.transformer == nil {
		return data, false, nil
	}
	out, stale, err = s.transformer.TransformFromStorage(ctx, data, s.authenticatedData(key))
	if err != nil {
		return nil, false, fmt.Errorf("unable to transform key %q: %w", s.dataKeyPrefix+key, err)
	}
	return out, stale, nil
}
