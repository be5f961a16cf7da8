package storage

import (
	"bytes"
	"context"
	"io"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
)

// ItemEncodings remembers how one version of a stored object was written
// as an item of list responses, one entry per wire form (the caller's id
// names the serializer and everything else the bytes depend on), so that
// later lists copy the bytes instead of encoding the object again. A
// watch cache keeps one per object version: a change makes a new version
// with no encodings, so stale bytes are never served.
type ItemEncodings struct {
	// entries is replaced, never changed: readers load it without a lock.
	entries atomic.Pointer[[]encodedItem]
}

type encodedItem struct {
	id   string
	data []byte
}

// Write writes the bytes recorded for id, or calls encode to produce
// them, records a copy (encode may reuse its buffer) and writes them. Two
// lists encoding the same object at once may both call encode; the bytes
// are the same and one is kept.
func (e *ItemEncodings) Write(id string, encode func() ([]byte, error), w io.Writer) error {
	data, ok := e.lookup(id)
	if !ok {
		encoded, err := encode()
		if err != nil {
			return err
		}
		data = bytes.Clone(encoded)
		e.record(id, data)
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

func (e *ItemEncodings) record(id string, data []byte) {
	for {
		old := e.entries.Load()
		var next []encodedItem
		if old != nil {
			for _, en := range *old {
				if en.id == id {
					return // another list recorded it first
				}
			}
			next = append(make([]encodedItem, 0, len(*old)+1), *old...)
		}
		next = append(next, encodedItem{id: id, data: data})
		if e.entries.CompareAndSwap(old, &next) {
			return
		}
	}
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
