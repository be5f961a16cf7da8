package filters

import (
	"bufio"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/kapi-dev/kapi/internal/endpoints/metrics"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// httpLogLevel is the -v level at which kube-apiserver logs every request.
const httpLogLevel = 3

// VerbosityChecker tells whether messages of a -v level are logged; the
// server's Verbosity, changeable at run time.
type VerbosityChecker interface{ Enabled(v int) bool }

// WithHTTPLogging logs one "HTTP" line per request when the verbosity is
// at least 3 (read per request, so /debug/flags/v takes effect at once),
// with upstream's httplog fields: verb (as the request metrics report it:
// LIST, WATCH, APPLY, ...), URI, latency, userAgent, audit-ID, srcIP and
// resp (the status code; hijacked=true instead for an upgraded
// connection). It sits where upstream has it: outside request info's
// consumers, inside the audit ID.
func WithHTTPLogging(next http.Handler, logger *slog.Logger, v VerbosityChecker) http.Handler {
	if logger == nil || v == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !v.Enabled(httpLogLevel) {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		hw := &hijackNoter{statusWriter: sw}
		defer func() { logRequest(logger, r, start, sw.Status(), hw.hijacked) }()
		next.ServeHTTP(hw, r)
	})
}

func logRequest(logger *slog.Logger, r *http.Request, start time.Time, code int, hijacked bool) {
	verb := r.Method
	if info, ok := request.RequestInfoFrom(r.Context()); ok {
		verb = metrics.Verb(r, info, metrics.Scope(info))
	}
	args := []any{
		"verb", verb,
		"URI", r.RequestURI,
		"latency", time.Since(start),
		"userAgent", r.UserAgent(),
		"audit-ID", request.AuditIDFrom(r.Context()),
		"srcIP", r.RemoteAddr,
	}
	if hijacked {
		args = append(args, "hijacked", true)
	} else {
		args = append(args, "resp", code)
	}
	logger.Info("HTTP", args...)
}

// hijackNoter notes that the connection was taken over.
type hijackNoter struct {
	*statusWriter
	hijacked bool
}

func (w *hijackNoter) Unwrap() http.ResponseWriter { return w.statusWriter }

// Hijack implements http.Hijacker.
func (w *hijackNoter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := w.statusWriter.Hijack()
	if err == nil {
		w.hijacked = true
	}
	return c, rw, err
}
