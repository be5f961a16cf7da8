package server

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/internal/stack"
)

// connectionLinger is how long shutdown lets connections linger once every
// handler has returned, before closing them. Their responses are complete
// by then; what remains is the connection's last flush. Without it, Go's
// HTTP/2 server keeps every idle connection open for a second after its
// GOAWAY (its goAwayTimeout), so that a client across a network reads the
// GOAWAY before the close; the clients of a server that is going away gain
// nothing from that second, and a server in a test pays it on every stop.
const connectionLinger = 5 * time.Millisecond

// runningHandlers counts the handlers in progress, long-running ones
// (watches) included: unlike the request wait group, which drains only
// what may finish by itself, it tells when no response is being written.
type runningHandlers struct {
	mu   sync.Mutex
	n    int
	none chan struct{} // closed while n is zero
}

func newRunningHandlers() *runningHandlers {
	none := make(chan struct{})
	close(none)
	return &runningHandlers{none: none}
}

// wrap counts every call of h, on a stack grown to fit the filter chain.
func (r *runningHandlers) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		stack.GrowForChain()
		r.add()
		defer r.done()
		h.ServeHTTP(w, req)
	})
}

func (r *runningHandlers) add() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == 0 {
		r.none = make(chan struct{})
	}
	r.n++
}

func (r *runningHandlers) done() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n--
	if r.n == 0 {
		close(r.none)
	}
}

// wait returns nil once no handler runs, or ctx's error.
func (r *runningHandlers) wait(ctx context.Context) error {
	r.mu.Lock()
	none := r.none
	r.mu.Unlock()
	select {
	case <-none:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
