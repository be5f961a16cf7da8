package filters

import (
	"bufio"
	"net"
	"net/http"
)

// hookWriter calls beforeHeader once, right before the status line goes out
// (by WriteHeader, the first Write, a Flush or a Hijack), so a filter can add
// headers at the last moment or learn that it can no longer send its own
// response. Flush and Hijack reach the wrapped writer through
// http.ResponseController, so watches and upgrades keep working.
type hookWriter struct {
	http.ResponseWriter
	beforeHeader func()
	committed    bool
}

func (w *hookWriter) commit() {
	if w.committed {
		return
	}
	w.committed = true
	if w.beforeHeader != nil {
		w.beforeHeader()
	}
}

func (w *hookWriter) WriteHeader(code int) {
	// Informational responses (100 Continue, 103 Early Hints) precede the
	// real status line; only 101 Switching Protocols is final.
	if code >= 200 || code == http.StatusSwitchingProtocols {
		w.commit()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *hookWriter) Write(b []byte) (int, error) {
	w.commit()
	return w.ResponseWriter.Write(b)
}

// Flush implements http.Flusher.
func (w *hookWriter) Flush() {
	_ = w.FlushError()
}

// FlushError is what http.ResponseController calls.
func (w *hookWriter) FlushError() error {
	w.commit()
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Hijack implements http.Hijacker when the wrapped writer supports it.
func (w *hookWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.commit()
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Unwrap lets http.ResponseController reach the wrapped writer's deadlines.
func (w *hookWriter) Unwrap() http.ResponseWriter {
	return w.ResponseWriter
}
