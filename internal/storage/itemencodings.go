package storage

import (
	"bytes"
	"context"
	"io"
	goruntime "runtime"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
)

// ItemEncodings remembers how one version of a stored object was written
// as an item of list responses, one entry per wire form (the caller's id
// names the serializer and everything else the bytes depend on), so that
// later lists copy the bytes instead of encoding the object again. A
// watch cache keeps one per object version: a change makes a new version
// with no encodings, so stale bytes are never served. All of them
// together hold at most itemEncodingsBudget bytes: past it, items are
// encoded every time, as without them.
type ItemEncodings struct {
	// entries is replaced, never changed: readers load it without a lock.
	entries atomic.Pointer[[]encodedItem]
	// held counts the bytes entries holds against the budget; made with
	// the first entry, it gives them back once the encodings are
	// garbage.
	held atomic.Pointer[heldBytes]
}

type encodedItem struct {
	id   string
	data []byte
}

// itemEncodingsBudget bounds the bytes all ItemEncodings of the process
// hold: the encodings of 64 MiB of listed objects (about 45,000 ConfigMaps
// of 1 KiB), so that a cluster listing far more in JSON does not keep a
// second copy of everything it lists.
var itemEncodingsBudget int64 = 64 << 20

// itemEncodingBytes is what all ItemEncodings hold now.
var itemEncodingBytes atomic.Int64

type heldBytes struct{ n atomic.Int64 }

func releaseHeld(h *heldBytes) { itemEncodingBytes.Add(-h.n.Load()) }

// Write writes the bytes recorded for id, or calls encode to produce
// them, records a copy (encode may reuse its buffer) when the budget
// allows, and writes them.
func (e *ItemEncodings) Write(id string, encode func() ([]byte, error), w io.Writer) error {
	data, ok := e.lookup(id)
	if !ok {
		encoded, err := encode()
		if err != nil {
			return err
		}
		data = encoded
		e.record(id, encoded)
	}
	_, err := w.Write(data)
	return err
}

func (e *ItemEncodings) lookup(id string) ([]byte, bool) {
	if p := e.entries.Load(); p != nil {
		for _, en := range *p {
			if en.id == id {
				return en.data, true
			}
		}
	}
	return nil, false
}

// record keeps a copy of data under id, if the budget has room for it.
// Two lists encoding the same object at once may both record; the bytes
// are the same and the first is kept.
func (e *ItemEncodings) record(id string, data []byte) {
	n := int64(len(data))
	if itemEncodingBytes.Add(n) > itemEncodingsBudget {
		itemEncodingBytes.Add(-n)
		return
	}
	data = bytes.Clone(data)
	for {
		old := e.entries.Load()
		var next []encodedItem
		if old != nil {
			for _, en := range *old {
				if en.id == id {
					itemEncodingBytes.Add(-n) // another list recorded it first
					return
				}
			}
			next = append(make([]encodedItem, 0, len(*old)+1), *old...)
		}
		next = append(next, encodedItem{id: id, data: data})
		if e.entries.CompareAndSwap(old, &next) {
			e.heldBytes().n.Add(n)
			return
		}
	}
}

// heldBytes returns e's count of held bytes, making it (and arranging for
// its bytes to go back to the budget when e is garbage) on first use.
func (e *ItemEncodings) heldBytes() *heldBytes {
	if h := e.held.Load(); h != nil {
		return h
	}
	h := &heldBytes{}
	if !e.held.CompareAndSwap(nil, h) {
		return e.held.Load()
	}
	goruntime.AddCleanup(e, releaseHeld, h)
	return h
}

// ListSources is where a cache says which of its object versions filled
// a list, item by item, so the response writer can reuse their encodings.
// A request that wants them puts one in its context (WithListSources)
// before it lists; a storage that cannot tell leaves it empty.
type ListSources struct {
	list  runtime.Object
	items []*ItemEncodings
}

type listSourcesKey struct{}

// WithListSources returns a context whose lists record their sources in
// the returned ListSources.
func WithListSources(ctx context.Context) (context.Context, *ListSources) {
	s := &ListSources{}
	return context.WithValue(ctx, listSourcesKey{}, s), s
}

// RecordListSources tells the request of ctx, if it asked, that list was
// filled with the object versions items holds the encodings of, in
// order.
func RecordListSources(ctx context.Context, list runtime.Object, items []*ItemEncodings) {
	if s, ok := ctx.Value(listSourcesKey{}).(*ListSources); ok {
		s.list, s.items = list, items
	}
}

// ListSourcesFrom returns the ListSources of ctx; nil when the request
// did not ask.
func ListSourcesFrom(ctx context.Context) *ListSources {
	s, _ := ctx.Value(listSourcesKey{}).(*ListSources)
	return s
}

// WantsListSources reports whether the request of ctx asked for the
// sources of its list, so a storage builds them only then.
func WantsListSources(ctx context.Context) bool {
	_, ok := ctx.Value(listSourcesKey{}).(*ListSources)
	return ok
}

// For returns the encodings of list's items when list is the very list
// the storage filled (not a copy or a conversion of it), else nil.
func (s *ListSources) For(list runtime.Object) []*ItemEncodings {
	if s == nil || s.list == nil || s.list != list {
		return nil
	}
	return s.items
}
