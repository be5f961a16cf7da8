package filters

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kapi-dev/kapi/internal/audit"
	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// The annotations the authorization filter records on audit events, with
// upstream's keys and values.
const (
	AuditAnnotationDecision = "authorization.k8s.io/decision"
	AuditAnnotationReason   = "authorization.k8s.io/reason"

	auditDecisionAllow  = "allow"
	auditDecisionForbid = "forbid"
	auditReasonError    = "internal error"
)

const (
	maxUserAgentLength      = 1024
	userAgentTruncateSuffix = "...TRUNCATED"
	// statusCaptureBytes is enough of a response to find a Status in it,
	// which every level records; only RequestResponse keeps whole bodies.
	statusCaptureBytes = 16 << 10
)

// AddAuditAnnotation records key=value on the request's audit event; the
// first value for a key wins. It does nothing for unaudited requests.
func AddAuditAnnotation(ctx context.Context, key, value string) {
	audit.AddAnnotation(ctx, key, value)
}

// AuditAuthorizationDecision records an authorizer's answer as
// kube-apiserver's authorization filter does: decision and reason on allow
// and forbid, reason "internal error" when the authorizer failed.
func AuditAuthorizationDecision(ctx context.Context, d authorizer.Decision, reason string, err error) {
	switch {
	case d == authorizer.DecisionAllow:
		AddAuditAnnotation(ctx, AuditAnnotationDecision, auditDecisionAllow)
		AddAuditAnnotation(ctx, AuditAnnotationReason, reason)
	case err != nil:
		AddAuditAnnotation(ctx, AuditAnnotationReason, auditReasonError)
	default:
		AddAuditAnnotation(ctx, AuditAnnotationDecision, auditDecisionForbid)
		AddAuditAnnotation(ctx, AuditAnnotationReason, reason)
	}
}

// WithAudit records an audit event for each request the checker gives a
// level above None: RequestReceived when it arrives, ResponseStarted when a
// long-running response starts, then ResponseComplete, or Panic when the
// handler panicked (the panic goes on). The user is the authenticated one;
// impersonation, inside this filter, adds impersonatedUser. Request bodies
// are recorded from level Request as the handler reads them; response
// bodies at RequestResponse as the handler writes them (not for
// long-running requests). Bodies are recorded when they are JSON, YAML or
// the protobuf of a built-in type (see audit.BodyObject). A backend that cannot take the first
// stage fails the request with a 500, as upstream.
func WithAudit(next http.Handler, checker audit.Checker, backend audit.Backend, longRunning func(*http.Request, *request.RequestInfo) bool) http.Handler {
	return withAudit(next, checker, backend, longRunning, time.Now)
}

func withAudit(next http.Handler, checker audit.Checker, backend audit.Backend, longRunning func(*http.Request, *request.RequestInfo) bool, now func() time.Time) http.Handler {
	if checker == nil || backend == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		config, ev, ok := auditPolicyFor(w, r, checker, now)
		if !ok {
			return
		}
		if config.Level.Less(auditv1.LevelMetadata) {
			next.ServeHTTP(w, r)
			return
		}
		rec := audit.NewRecord(config, backend, ev)
		r = r.WithContext(audit.WithRecord(r.Context(), rec))
		if !rec.ProcessStage(auditv1.StageRequestReceived, now()) {
			WriteStatus(w, apierrors.NewInternalError(errors.New("failed to store audit event")))
			return
		}

		info, _ := request.RequestInfoFrom(r.Context())
		isLongRunning := longRunning != nil && info != nil && longRunning(r, info)
		aw := &auditWriter{ResponseWriter: w, rec: rec, now: now, longRunning: isLongRunning}
		if !isLongRunning {
			aw.captureLimit = statusCaptureBytes
			if config.Level.GreaterOrEqual(auditv1.LevelRequestResponse) {
				aw.captureLimit = audit.MaxBodyBytes
			}
		}
		var body *auditBody
		if config.Level.GreaterOrEqual(auditv1.LevelRequest) && hasBody(r) && info != nil && info.IsResourceRequest && bodyVerbs[info.Verb] {
			body = &auditBody{ReadCloser: r.Body}
			r.Body = body
		}

		defer func() {
			if v := recover(); v != nil {
				rec.Update(func(e *auditv1.Event) {
					e.ResponseStatus = &metav1.Status{
						Code:    http.StatusInternalServerError,
						Status:  metav1.StatusFailure,
						Reason:  metav1.StatusReasonInternalError,
						Message: fmt.Sprintf("APIServer panic'd: %v", v),
					}
				})
				rec.ProcessStage(auditv1.StagePanic, now())
				panic(v)
			}
			aw.finish(r, body)
		}()
		next.ServeHTTP(aw, r)
	})
}

// bodyVerbs are the verbs whose request body is the object an event records.
var bodyVerbs = map[string]bool{"create": true, "update": true, "patch": true, "delete": true, "deletecollection": true}

func hasBody(r *http.Request) bool {
	return r.Body != nil && r.Body != http.NoBody
}

// auditPolicyFor evaluates the policy for r and starts its event; it
// answers a 500 itself (and returns false) when r's attributes cannot be
// read.
func auditPolicyFor(w http.ResponseWriter, r *http.Request, checker audit.Checker, now func() time.Time) (audit.RequestAuditConfig, auditv1.Event, bool) {
	attrs, err := AttributesFrom(r)
	if err != nil {
		WriteStatus(w, apierrors.NewInternalError(errors.New("failed to create audit event")))
		return audit.RequestAuditConfig{}, auditv1.Event{}, false
	}
	config := checker.LevelAndStages(attrs)
	if config.Level.Less(auditv1.LevelMetadata) {
		return config, auditv1.Event{}, true
	}
	return config, newAuditEvent(r, attrs, now()), true
}

func newAuditEvent(r *http.Request, attrs authorizer.Attributes, received time.Time) auditv1.Event {
	id := request.AuditIDFrom(r.Context())
	if id == "" {
		id = string(uuid.NewUUID())
	}
	ev := auditv1.Event{
		AuditID:                  types.UID(id),
		RequestURI:               r.URL.RequestURI(),
		Verb:                     attrs.Verb,
		User:                     audit.UserInfo(attrs.User),
		UserAgent:                r.UserAgent(),
		RequestReceivedTimestamp: metav1.NewMicroTime(received),
	}
	if len(ev.UserAgent) > maxUserAgentLength {
		ev.UserAgent = ev.UserAgent[:maxUserAgentLength] + userAgentTruncateSuffix
	}
	for _, ip := range utilnet.SourceIPs(r) {
		ev.SourceIPs = append(ev.SourceIPs, ip.String())
	}
	if attrs.ResourceRequest {
		ev.ObjectRef = &auditv1.ObjectReference{
			Resource:    attrs.Resource,
			Namespace:   attrs.Namespace,
			Name:        attrs.Name,
			APIGroup:    attrs.APIGroup,
			APIVersion:  attrs.APIVersion,
			Subresource: attrs.Subresource,
		}
	}
	return ev
}

// auditBody keeps what the handler reads of the request body, so nothing is
// read for a request refused before its handler. The copy counts only when
// the handler read it all.
type auditBody struct {
	io.ReadCloser
	mu       sync.Mutex
	buf      bytes.Buffer
	eof      bool
	overflow bool
}

func (b *auditBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.overflow {
		if b.buf.Len()+n > audit.MaxBodyBytes {
			b.overflow = true
			b.buf = bytes.Buffer{}
		} else {
			b.buf.Write(p[:n])
		}
	}
	if errors.Is(err, io.EOF) {
		b.eof = true
	}
	return n, err
}

func (b *auditBody) complete() ([]byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Bytes(), b.eof && !b.overflow
}

// auditWriter learns the response code (sending ResponseStarted for
// long-running requests when it is known) and keeps up to captureLimit
// bytes of the body.
type auditWriter struct {
	http.ResponseWriter
	rec          *audit.Record
	now          func() time.Time
	longRunning  bool
	captureLimit int

	mu       sync.Mutex
	code     int
	buf      bytes.Buffer
	overflow bool
}

func (w *auditWriter) processCode(code int) {
	w.mu.Lock()
	if w.code != 0 {
		w.mu.Unlock()
		return
	}
	w.code = code
	w.mu.Unlock()
	w.rec.Update(func(e *auditv1.Event) {
		// A status set before the response (a failed authentication's
		// message) keeps what it says.
		if e.ResponseStatus == nil {
			e.ResponseStatus = &metav1.Status{}
		}
		e.ResponseStatus.Code = int32(code)
	})
	if w.longRunning {
		w.rec.ProcessStage(auditv1.StageResponseStarted, w.now())
	}
}

func (w *auditWriter) WriteHeader(code int) {
	// Informational responses come before the real one.
	if code >= 200 || code == http.StatusSwitchingProtocols {
		w.processCode(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *auditWriter) Write(b []byte) (int, error) {
	w.processCode(http.StatusOK)
	w.mu.Lock()
	if !w.overflow && w.captureLimit > 0 {
		if w.buf.Len()+len(b) > w.captureLimit {
			w.overflow = true
			w.buf = bytes.Buffer{}
		} else {
			w.buf.Write(b)
		}
	}
	w.mu.Unlock()
	return w.ResponseWriter.Write(b)
}

// Flush implements http.Flusher.
func (w *auditWriter) Flush() {
	_ = w.FlushError()
}

// FlushError is what http.ResponseController calls.
func (w *auditWriter) FlushError() error {
	w.processCode(http.StatusOK)
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Hijack implements http.Hijacker; the protocol switch is the response.
func (w *auditWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.processCode(http.StatusSwitchingProtocols)
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Unwrap lets http.ResponseController reach the wrapped writer.
func (w *auditWriter) Unwrap() http.ResponseWriter {
	return w.ResponseWriter
}

// finish fills in the bodies and the response status and sends
// ResponseComplete. A handler that wrote nothing is recorded as upstream
// records it: 200 "Connection closed early".
func (w *auditWriter) finish(r *http.Request, body *auditBody) {
	config := w.rec.Config()
	w.mu.Lock()
	code, captured := w.code, []byte(nil)
	if !w.overflow {
		captured = w.buf.Bytes()
	}
	w.mu.Unlock()
	if code == 0 {
		w.rec.Update(func(e *auditv1.Event) {
			e.ResponseStatus = &metav1.Status{Code: http.StatusOK, Status: metav1.StatusSuccess, Message: "Connection closed early"}
		})
		if w.longRunning {
			w.rec.ProcessStage(auditv1.StageResponseStarted, w.now())
		}
	}
	h := w.Header()
	w.rec.Update(func(e *auditv1.Event) {
		if body != nil {
			if data, ok := body.complete(); ok {
				e.RequestObject = audit.BodyObject(r.Header.Get("Content-Type"), r.Header.Get("Content-Encoding"), data, config.OmitManagedFields)
			}
		}
		if code == 0 || len(captured) == 0 {
			return
		}
		if s := audit.StatusFrom(h.Get("Content-Type"), captured); s != nil {
			if s.Code == 0 {
				s.Code = int32(code)
			}
			e.ResponseStatus = &metav1.Status{Status: s.Status, Message: s.Message, Reason: s.Reason, Details: s.Details, Code: s.Code}
		}
		if config.Level.GreaterOrEqual(auditv1.LevelRequestResponse) {
			e.ResponseObject = audit.BodyObject(h.Get("Content-Type"), h.Get("Content-Encoding"), captured, config.OmitManagedFields)
		}
	})
	w.rec.ProcessStage(auditv1.StageResponseComplete, w.now())
}
