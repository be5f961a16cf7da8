package kvstore

import (
	"bytes"
	"unsafe"

	"k8s.io/apimachinery/pkg/runtime"
)

// encode returns obj's stored encoding. The protobuf serializer (the
// storage encoding unless --storage-media-type says otherwise) builds
// the whole encoding in one buffer it gets from an allocator and writes
// it at once; that buffer is kept as the value instead of being copied
// into a bytes.Buffer, a second copy of every written object. Any other
// pattern of writes is encoded again the plain way.
func encode(codec runtime.Encoder, obj runtime.Object) ([]byte, error) {
	e, ok := codec.(runtime.EncoderWithAllocator)
	if !ok {
		return runtime.Encode(codec, obj)
	}
	var w ownBufferWriter
	if err := e.EncodeWithAllocator(obj, &w, &w); err != nil {
		return nil, err
	}
	if w.single() {
		return w.kept, nil
	}
	if !w.sawOwnBuffer {
		return w.copied.Bytes(), nil
	}
	// Written in pieces from its own buffer: the first piece may have
	// been overwritten since.
	return runtime.Encode(codec, obj)
}

// ownBufferWriter is both the allocator and the writer of one encoding.
type ownBufferWriter struct {
	allocated    []byte
	kept         []byte // the first write, when it is the allocated buffer
	copied       bytes.Buffer
	writes       int
	sawOwnBuffer bool
}

func (w *ownBufferWriter) Allocate(n uint64) []byte {
	w.allocated = make([]byte, n)
	return w.allocated
}

func (w *ownBufferWriter) Write(p []byte) (int, error) {
	w.writes++
	own := len(p) > 0 && len(w.allocated) > 0 && unsafe.SliceData(p) == unsafe.SliceData(w.allocated)
	w.sawOwnBuffer = w.sawOwnBuffer || own
	if w.writes == 1 && own {
		w.kept = p
		return len(p), nil
	}
	return w.copied.Write(p)
}

func (w *ownBufferWriter) single() bool { return w.writes == 1 && w.kept != nil }
