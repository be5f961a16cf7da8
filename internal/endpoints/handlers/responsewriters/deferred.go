package responsewriters

import (
	"compress/gzip"
	"io"
	"net/http"
	"sync"
)

// deferredWriter is the body writer of SerializeObject. It holds the first
// gzipThresholdBytes of the body, so that a small body that fails to
// encode still becomes a Status and so that gzip is chosen, as before,
// only for bodies larger than the threshold. Past the threshold it sends
// the status line and streams everything through, so a list encoded item
// by item never exists whole in memory: what a response holds is bounded
// by the threshold (plus the gzip writer's state), whatever the list's
// size, and a slow client only slows the encoder down.
type deferredWriter struct {
	hw         http.ResponseWriter
	mediaType  string
	statusCode int
	gzipOK     bool

	buf     []byte
	started bool
	out     io.Writer
	gz      *gzip.Writer
	// writeErr is the first error of writing to the client: it means the
	// client went away, not that encoding failed.
	writeErr error
}

func newDeferredWriter(hw http.ResponseWriter, req *http.Request, mediaType string, statusCode int) *deferredWriter {
	return &deferredWriter{hw: hw, mediaType: mediaType, statusCode: statusCode, gzipOK: acceptsGzip(req)}
}

func (w *deferredWriter) Write(p []byte) (int, error) {
	if w.started {
		return w.send(p)
	}
	// A whole body written at once (an encoder that does not stream) is
	// sent without a copy.
	if len(w.buf) == 0 && len(p) > gzipThresholdBytes {
		w.start(true)
		return w.send(p)
	}
	if w.buf == nil {
		w.buf = (*holdBuffers.Get().(*[]byte))[:0]
	}
	w.buf = append(w.buf, p...)
	if len(w.buf) > gzipThresholdBytes {
		w.start(true)
		_, err := w.send(w.buf)
		w.releaseBuf()
		if err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// holdBuffers reuse the buffers that hold back the start of a body: grown
// by appends to past the threshold, each cost about twice the threshold
// in allocations, on every page of a paged list.
var holdBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, gzipThresholdBytes+32<<10)
	return &b
}}

// releaseBuf returns the held buffer, whose bytes were sent (the writers
// below copy what they are given) or are no longer wanted.
func (w *deferredWriter) releaseBuf() {
	if w.buf != nil && cap(w.buf) <= 2*gzipThresholdBytes {
		b := w.buf[:0]
		holdBuffers.Put(&b)
	}
	w.buf = nil
}

// send writes to the client, keeping its first error.
func (w *deferredWriter) send(p []byte) (int, error) {
	if w.writeErr != nil {
		return 0, w.writeErr
	}
	n, err := w.out.Write(p)
	if err != nil {
		w.writeErr = err
	}
	return n, err
}

// start commits the headers and status; large says the body is larger
// than the gzip threshold.
func (w *deferredWriter) start(large bool) {
	w.started = true
	h := w.hw.Header()
	h.Set("Content-Type", w.mediaType)
	w.out = w.hw
	if large && w.gzipOK {
		h.Set("Content-Encoding", "gzip")
		h.Add("Vary", "Accept-Encoding")
		w.gz = gzipWriters.Get().(*gzip.Writer)
		w.gz.Reset(w.hw)
		w.out = w.gz
	}
	w.hw.WriteHeader(w.statusCode)
}

// discard drops what is held, before anything was sent.
func (w *deferredWriter) discard() { w.releaseBuf() }

// Close sends what is held and ends the gzip stream.
func (w *deferredWriter) Close() error {
	if !w.started {
		w.start(false)
		_, err := w.send(w.buf)
		w.releaseBuf()
		return err
	}
	if w.gz == nil {
		return w.writeErr
	}
	err := w.gz.Close()
	if w.writeErr != nil {
		err = w.writeErr
	}
	w.gz.Reset(io.Discard)
	gzipWriters.Put(w.gz)
	w.gz = nil
	return err
}

// gzipWriters reuses gzip writers: each holds a few hundred KiB of
// compressor state.
var gzipWriters = sync.Pool{New: func() any {
	gw, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed) // a valid level never errs
	return gw
}}
