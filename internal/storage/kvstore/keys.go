package kvstore

import (
	"context"
	"sort"
	"strings"
)

// KeyRanger is a KV that can read keys without their values.
type KeyRanger interface {
	// RangeKeys is Range at the latest revision, with only keys and
	// modification revisions in the KVs.
	RangeKeys(ctx context.Context, key, end string, limit int64) (RangeResult, error)
}

// KeyRevision is a key and the revision of its last write.
type KeyRevision struct {
	Key         string
	ModRevision int64
}

// KeySnapshot is every key of a store at one revision, in key order.
type KeySnapshot struct {
	Revision int64
	Keys     []KeyRevision
}

// Under returns the keys of the folder prefix (without its trailing
// "/"): those that start with prefix + "/".
func (s *KeySnapshot) Under(prefix string) []KeyRevision {
	folder := prefix + "/"
	lo := sort.Search(len(s.Keys), func(i int) bool { return s.Keys[i].Key >= folder })
	hi := lo
	for hi < len(s.Keys) && strings.HasPrefix(s.Keys[hi].Key, folder) {
		hi++
	}
	return s.Keys[lo:hi]
}

// Keys reads every key of the store at its latest revision, values left
// out where the KV can. ok is false, and the snapshot empty, when the
// store holds more than limit keys.
func (b *Backend) Keys(ctx context.Context, limit int64) (snap KeySnapshot, ok bool, err error) {
	var res RangeResult
	if kr, isKR := b.kv.(KeyRanger); isKR {
		res, err = kr.RangeKeys(ctx, "/", "\x00", limit)
	} else {
		res, err = b.kv.Range(ctx, "/", "\x00", 0, limit)
	}
	if err != nil || res.More {
		return KeySnapshot{}, false, err
	}
	snap = KeySnapshot{Revision: res.Revision, Keys: make([]KeyRevision, len(res.KVs))}
	for i, kv := range res.KVs {
		snap.Keys[i] = KeyRevision{Key: kv.Key, ModRevision: kv.ModRevision}
	}
	return snap, true, nil
}
