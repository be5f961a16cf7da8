package filters

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/stack"
)

// timeoutMessage is upstream's wording; the Status message is prefixed with
// "Timeout: ".
const timeoutMessage = "request did not complete within the allotted timeout"

// WithTimeoutForNonLongRunningRequests bounds every non-long-running request
// by a deadline: timeout, or the shorter ?timeout= the client asked for
// (a malformed one is a 400). The handler runs on its own goroutine with the
// deadline in its context; when the deadline passes first, the client gets a
// 504 Timeout Status — or, if the handler already started its response, an
// aborted response — and the handler's later writes fail with
// http.ErrHandlerTimeout. timeout <= 0 means no server-side limit.
func WithTimeoutForNonLongRunningRequests(next http.Handler, longRunning request.LongRunningRequestCheck, timeout time.Duration, logger *slog.Logger) http.Handler {
	logger = orDiscard(logger)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, handled := serveIfLongRunning(w, r, next, longRunning); handled {
			return
		}
		d, err := requestTimeout(r, timeout)
		if err != nil {
			WriteStatus(w, apierrors.NewBadRequest(err.Error()))
			return
		}
		if d <= 0 {
			next.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		serveWithDeadline(w, r.WithContext(ctx), next, logger)
	})
}

// requestTimeout returns the deadline for r: the client may shorten the
// server's limit but never extend it.
func requestTimeout(r *http.Request, limit time.Duration) (time.Duration, error) {
	v := r.URL.Query().Get("timeout")
	if v == "" {
		return limit, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("invalid timeout specified in the request URL - %v", err)
	}
	if d > 0 && (limit <= 0 || d < limit) {
		return d, nil
	}
	return limit, nil
}

// serveWithDeadline runs next on its own goroutine and answers for it when
// r's context ends first.
func serveWithDeadline(w http.ResponseWriter, r *http.Request, next http.Handler, logger *slog.Logger) {
	tw := &timeoutWriter{w: w, header: w.Header().Clone()}
	var body *timeoutBody
	if r.Body != nil && r.Body != http.NoBody {
		body = &timeoutBody{ReadCloser: r.Body}
		r.Body = body
	}
	// The goroutine may outlive this call; give it its own copy of the
	// request so nothing here races with it.
	inner := r.Clone(r.Context())
	// Buffered so a handler finishing after the timeout never blocks.
	result := make(chan any, 1)
	go func() {
		stack.GrowForHandler()
		defer func() { result <- recoverForRethrow(recover()) }()
		next.ServeHTTP(tw, inner)
	}()
	select {
	case v := <-result:
		if v != nil {
			panic(v)
		}
	case <-r.Context().Done():
		if body != nil {
			body.timeout()
		}
		// A client that went away was not turned away.
		if errors.Is(r.Context().Err(), context.DeadlineExceeded) {
			request.MarkTerminated(r.Context(), http.StatusGatewayTimeout)
		}
		logger.Debug("request timed out", "method", r.Method, "uri", r.RequestURI,
			"auditID", request.AuditIDFrom(r.Context()), "cause", context.Cause(r.Context()))
		if !tw.timeout() {
			// The status line is gone; only aborting tells the client the
			// response is incomplete.
			panic(http.ErrAbortHandler)
		}
	}
}

// recoverForRethrow keeps the stack of a panic so that rethrowing it on the
// serving goroutine still shows where it happened.
func recoverForRethrow(v any) any {
	if v == nil {
		return nil
	}
	if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
		return v
	}
	if _, ok := v.(*handlerPanic); ok {
		return v
	}
	return &handlerPanic{value: v, stack: debug.Stack()}
}

// timeoutWriter gives the handler goroutine its own header map and serialises
// its writes with the timeout response, after which the handler's writes
// fail.
type timeoutWriter struct {
	w http.ResponseWriter

	mu          sync.Mutex
	header      http.Header // the handler's headers until they are committed
	timedOut    bool
	wroteHeader bool
	hijacked    bool
}

func (tw *timeoutWriter) Header() http.Header {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut {
		return http.Header{}
	}
	return tw.header
}

// commitLocked makes the handler's headers the real ones, deletions
// included.
func (tw *timeoutWriter) commitLocked() {
	if tw.wroteHeader {
		return
	}
	tw.wroteHeader = true
	dst := tw.w.Header()
	for k := range dst {
		if _, ok := tw.header[k]; !ok {
			delete(dst, k)
		}
	}
	for k, v := range tw.header {
		dst[k] = v
	}
}

func (tw *timeoutWriter) WriteHeader(code int) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut || tw.hijacked {
		return
	}
	if code >= 200 || code == http.StatusSwitchingProtocols {
		if tw.wroteHeader {
			return
		}
		tw.commitLocked()
	}
	tw.w.WriteHeader(code)
}

func (tw *timeoutWriter) Write(p []byte) (int, error) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	switch {
	case tw.timedOut:
		return 0, http.ErrHandlerTimeout
	case tw.hijacked:
		return 0, http.ErrHijacked
	}
	tw.commitLocked()
	return tw.w.Write(p)
}

// Flush implements http.Flusher.
func (tw *timeoutWriter) Flush() {
	_ = tw.FlushError()
}

// FlushError is what http.ResponseController calls.
func (tw *timeoutWriter) FlushError() error {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut {
		return http.ErrHandlerTimeout
	}
	tw.commitLocked()
	return http.NewResponseController(tw.w).Flush()
}

// Hijack implements http.Hijacker when the wrapped writer supports it.
func (tw *timeoutWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut {
		return nil, nil, http.ErrHandlerTimeout
	}
	conn, rw, err := http.NewResponseController(tw.w).Hijack()
	if err == nil {
		tw.hijacked = true
	}
	return conn, rw, err
}

// timeout ends the handler's access to the response and writes the 504
// Status. It returns false when the response had already started.
func (tw *timeoutWriter) timeout() bool {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	tw.timedOut = true
	if tw.wroteHeader || tw.hijacked {
		return false
	}
	WriteStatus(tw.w, apierrors.NewTimeoutError(timeoutMessage, 0))
	return true
}

// timeoutBody makes the request body unreadable once the request timed out,
// so a handler still reading does not consume a connection that is about to
// be reused. A read already in progress is not interrupted: holding a lock
// across it would let a slow client delay the timeout response.
type timeoutBody struct {
	io.ReadCloser
	timedOut atomic.Bool
}

func (b *timeoutBody) timeout() { b.timedOut.Store(true) }

func (b *timeoutBody) Read(p []byte) (int, error) {
	if b.timedOut.Load() {
		return 0, http.ErrHandlerTimeout
	}
	return b.ReadCloser.Read(p)
}

func (b *timeoutBody) Close() error {
	if b.timedOut.Load() {
		return http.ErrHandlerTimeout
	}
	return b.ReadCloser.Close()
}
