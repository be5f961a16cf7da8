// Package kvstore implements storage.Interface over a revisioned key-value
// store with etcd's model: one global revision, per-key modification
// revisions, compare-and-swap on the modification revision, range reads at a
// past revision and watches that resume from a revision. The etcd3 and memory
// backends supply a KV; everything the API server observes (encoding,
// resourceVersion, preconditions, paging, watch filtering) lives here once, so
// both backends behave the same.
package kvstore

import "context"

// KeyValue is a key's value at a revision. Keys are the storage keys the
// registry uses ("/configmaps/ns/name"); a KV adds its own prefix.
type KeyValue struct {
	Key   string
	Value []byte
	// ModRevision is the revision of the write that produced Value (for a
	// deletion event: the revision of the deletion).
	ModRevision int64
}

// RangeResult is the answer to a range read.
type RangeResult struct {
	KVs []KeyValue
	// Count is the number of keys in the range at the read revision,
	// ignoring the limit.
	Count int64
	// More is true when the limit cut the result short.
	More bool
	// Revision is the store's current revision when the read happened (for
	// etcd, the response header revision), not the revision read at.
	Revision int64
}

// EventType says what happened to a key.
type EventType int

// The watch event types.
const (
	EventPut EventType = iota + 1
	EventDelete
)

// Event is one change seen by a watch.
type Event struct {
	Type EventType
	// KV is the new value; for deletions only Key and ModRevision are set.
	KV KeyValue
	// PrevKV is the value before the change, nil when the key was created
	// or the previous value is unknown.
	PrevKV *KeyValue
	// Created is set for a put that created the key.
	Created bool
}

// WatchResponse is one batch of watch output.
type WatchResponse struct {
	Events []Event
	// Progress marks a progress notification: every event up to Revision
	// has been delivered.
	Progress bool
	Revision int64
	// Err ends the watch. A *storage.Error with ErrCodeExpired carries the
	// compacted revision in its ResourceVersion field.
	Err error
}

// KV is the minimal revisioned key-value store kvstore needs. Errors are
// *storage.Error values where a code applies (ErrCodeExpired for a
// compacted revision, ErrCodeTooLargeResourceVersion for a future one,
// ErrCodeUnreachable when the store is gone).
type KV interface {
	// Range reads key, or [key, end) when end is not empty, at revision rev
	// (0 reads the latest), in key order, at most limit entries (0: all).
	Range(ctx context.Context, key, end string, rev, limit int64) (RangeResult, error)
	// Count counts the keys in [key, end) at the latest revision.
	Count(ctx context.Context, key, end string) (int64, error)
	// Revision returns the current revision.
	Revision(ctx context.Context) (int64, error)
	// Put writes value at key if the key's ModRevision equals expected (0:
	// the key must not exist). On a failed comparison ok is false and cur
	// holds the current value (nil when the key is absent).
	Put(ctx context.Context, key string, value []byte, expected int64) (rev int64, cur *KeyValue, ok bool, err error)
	// Delete removes key if its ModRevision equals expected, returning the
	// deletion revision; on a failed comparison it behaves like Put.
	Delete(ctx context.Context, key string, expected int64) (rev int64, cur *KeyValue, ok bool, err error)
	// Watch streams changes to key, or to [key, end) when end is not empty,
	// starting at revision rev (inclusive). The stream ends when ctx is
	// done, the store closes, or after a response with Err. With
	// progressNotify the store may send progress notifications on its own.
	Watch(ctx context.Context, key, end string, rev int64, progressNotify bool) (WatchStream, error)
	// RequestProgress makes the store send a progress notification to its
	// watches (those that asked for them) once they have caught up.
	RequestProgress(ctx context.Context) error
}

// WatchStream is the output of one KV watch, read by one goroutine.
type WatchStream interface {
	// Next waits for the next response; false when ctx ends, or once the
	// watch has ended and every response sent before was read.
	Next(ctx context.Context) (WatchResponse, bool)
}

// ChanStream is a WatchStream read from a channel the KV closes when the
// watch ends.
type ChanStream <-chan WatchResponse

func (c ChanStream) Next(ctx context.Context) (WatchResponse, bool) {
	select {
	case <-ctx.Done():
		return WatchResponse{}, false
	case resp, ok := <-c:
		return resp, ok
	}
}

// PrefixEnd returns the smallest key greater than every key starting with
// prefix, the range end for a prefix read.
func PrefixEnd(prefix string) string {
	end := []byte(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return string(end[:i+1])
		}
	}
	// Every byte is 0xff: no upper bound. etcd spells that "\x00".
	return "\x00"
}
