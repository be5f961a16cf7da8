package kvstore

import (
	"bytes"
	"context"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage"
)

// objState is a key's current object together with its encoded bytes (as
// the codec wrote them, before any transformer).
type objState struct {
	obj  runtime.Object
	data []byte
	rev  int64 // 0 when the key does not exist
	// stale marks a value the transformer wants rewritten (an old
	// encryption key or provider).
	stale bool
}

// getState reads key at the latest revision.
func (s *store) getState(ctx context.Context, key string, ignoreNotFound bool) (*objState, error) {
	res, err := s.kv.Range(ctx, key, "", 0, 0)
	if err != nil {
		return nil, err
	}
	var kv *KeyValue
	if len(res.KVs) > 0 {
		kv = &res.KVs[0]
	}
	return s.stateFrom(ctx, key, kv, ignoreNotFound)
}

// stateFrom decodes kv; a nil kv is a missing key, which is an error unless
// ignoreNotFound asks for a zero object instead.
func (s *store) stateFrom(ctx context.Context, key string, kv *KeyValue, ignoreNotFound bool) (*objState, error) {
	st := &objState{obj: s.newFunc()}
	if kv == nil {
		if !ignoreNotFound {
			return nil, storage.NewError(storage.ErrCodeKeyNotFound, key, 0, "")
		}
		return st, runtime.SetZeroValue(st.obj)
	}
	data, stale, err := s.fromStorage(ctx, key, kv.Value)
	if err != nil {
		return nil, err
	}
	st.data, st.rev, st.stale = data, kv.ModRevision, stale
	if err := s.decodeInto(key, data, st.obj, kv.ModRevision); err != nil {
		return nil, err
	}
	return st, nil
}

// GuaranteedUpdate applies tryUpdate with optimistic concurrency: the write
// only lands if nobody changed the key since it was read, otherwise tryUpdate
// runs again on the fresh object.
func (s *store) GuaranteedUpdate(ctx context.Context, key string, dest runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc) error {
	if err := s.checkKey(key); err != nil {
		return err
	}
	st, err := s.getState(ctx, key, ignoreNotFound)
	if err != nil {
		return err
	}
	for {
		if err := preconditions.Check(key, st.obj); err != nil {
			return err
		}
		out, err := tryUpdate(st.obj, storage.ResponseMeta{ResourceVersion: uint64(st.rev)})
		if err != nil {
			return err
		}
		if err := s.versioner.PrepareObjectForStorage(out); err != nil {
			return err
		}
		data, err := encode(s.codec, out)
		if err != nil {
			return &storage.Error{Code: storage.ErrCodeInvalidObj, Key: key, Message: "cannot encode object", Err: err}
		}
		// An update that changes nothing is not written, so the
		// resourceVersion stays and watchers see no event; unless the
		// stored value is stale, so that rewriting every object moves
		// it to the current encryption key.
		if st.rev != 0 && !st.stale && bytes.Equal(data, st.data) {
			return s.decodeInto(key, st.data, dest, st.rev)
		}
		stored, err := s.toStorage(ctx, key, data)
		if err != nil {
			return err
		}
		rev, cur, ok, err := s.kv.Put(ctx, key, stored, st.rev)
		if err != nil {
			return err
		}
		if ok {
			return s.decodeInto(key, data, dest, rev)
		}
		s.logger.Debug("update lost a race, retrying", "key", key)
		if st, err = s.stateFrom(ctx, key, cur, ignoreNotFound); err != nil {
			return err
		}
	}
}
