package filters

import (
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// RequestInfoResolver parses a request into a RequestInfo;
// *request.RequestInfoFactory is the implementation.
type RequestInfoResolver interface {
	NewRequestInfo(r *http.Request) (*request.RequestInfo, error)
}

// errNoRequestInfo means the chain is assembled wrongly: a filter that needs
// the RequestInfo runs outside WithRequestInfo.
var errNoRequestInfo = errors.New("no RequestInfo found in the context, the handler chain is misconfigured")

// WithRequestInfo parses what the request means (verb, group, version,
// resource, namespace, name) once, for every later filter and handler, and
// stores it and the namespace in the context.
func WithRequestInfo(next http.Handler, resolver RequestInfoResolver) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, err := resolver.NewRequestInfo(r)
		if err != nil {
			// Upstream answers a malformed API path with a 500 as well.
			WriteStatus(w, apierrors.NewInternalError(fmt.Errorf("failed to create RequestInfo: %w", err)))
			return
		}
		ctx := request.WithRequestInfo(r.Context(), info)
		if info.Namespace != "" {
			ctx = request.WithNamespace(ctx, info.Namespace)
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// requestInfo returns the RequestInfo in r, writing a 500 Status when the
// chain lacks WithRequestInfo.
func requestInfo(w http.ResponseWriter, r *http.Request) (*request.RequestInfo, bool) {
	info, ok := request.RequestInfoFrom(r.Context())
	if !ok {
		WriteStatus(w, apierrors.NewInternalError(errNoRequestInfo))
	}
	return info, ok
}

// serveIfLongRunning serves a long-running r directly with next, since the
// calling filter exempts those. It returns the RequestInfo and whether r
// was handled (served, or answered with a 500 for a missing RequestInfo).
func serveIfLongRunning(w http.ResponseWriter, r *http.Request, next http.Handler, longRunning request.LongRunningRequestCheck) (*request.RequestInfo, bool) {
	info, ok := requestInfo(w, r)
	if !ok {
		return nil, true
	}
	if longRunning != nil && longRunning(r, info) {
		next.ServeHTTP(w, r)
		return info, true
	}
	return info, false
}
