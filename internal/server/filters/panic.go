package filters

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// panicMessage is upstream's text: it tells the client where to look without
// leaking the panic value.
const panicMessage = "This request caused apiserver to panic. Look in the logs for details."

// handlerPanic carries a panic raised on another goroutine (the timeout
// filter runs handlers on their own goroutine) with the stack of the place
// it happened, so the recovery logs the real origin.
type handlerPanic struct {
	value any
	stack []byte
}

func (p *handlerPanic) String() string { return fmt.Sprintf("%v", p.value) }

// WithPanicRecovery turns a panic in next into a logged stack and a 500
// Status, so one bad request cannot take the server down. A panic with
// http.ErrAbortHandler is the deliberate way to abort a response: aborted
// (when not nil) is told of the request, and the panic is passed on to
// net/http untouched. When the response has already started, a Status can
// no longer be sent, so the response is aborted instead.
func WithPanicRecovery(next http.Handler, logger *slog.Logger, aborted func(*http.Request)) http.Handler {
	logger = orDiscard(logger)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hw := &hookWriter{ResponseWriter: w}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				if aborted != nil {
					aborted(r)
				}
				panic(v)
			}
			value, stack := v, debug.Stack()
			if hp, ok := v.(*handlerPanic); ok {
				value, stack = hp.value, hp.stack
			}
			logger.Error("panic while serving a request",
				"method", r.Method, "uri", r.RequestURI,
				"auditID", request.AuditIDFrom(r.Context()),
				"panic", fmt.Sprint(value), "stack", string(stack))
			if hw.committed {
				panic(http.ErrAbortHandler)
			}
			WriteStatus(hw, &apierrors.StatusError{ErrStatus: metav1.Status{
				Status:  metav1.StatusFailure,
				Code:    http.StatusInternalServerError,
				Reason:  metav1.StatusReasonInternalError,
				Message: panicMessage,
			}})
		}()
		next.ServeHTTP(hw, r)
	})
}

// orDiscard returns logger, or a logger that drops everything when nil.
func orDiscard(logger *slog.Logger) *slog.Logger {
	if logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return logger
}
