package filters

import (
	"net/http"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// readOnlyVerbs share the read-only budget; every other verb, including
// the lower-cased methods of non-resource requests other than GET, is
// mutating, as upstream counts them.
var readOnlyVerbs = []string{"get", "list", "watch"}

// WithMaxInFlightLimit caps the requests served at once, with separate
// budgets for read-only and mutating requests (0 means no cap). Over budget
// the client gets 429 TooManyRequests with Retry-After: 1. Long-running
// requests are not counted: a watch would otherwise hold a slot for hours.
// Members of system:masters are never turned away, as upstream: they are the
// break-glass admin and the loopback client.
func WithMaxInFlightLimit(next http.Handler, readOnlyLimit, mutatingLimit int, longRunning request.LongRunningRequestCheck) http.Handler {
	if readOnlyLimit <= 0 && mutatingLimit <= 0 {
		return next
	}
	var readOnly, mutating chan struct{}
	if readOnlyLimit > 0 {
		readOnly = make(chan struct{}, readOnlyLimit)
	}
	if mutatingLimit > 0 {
		mutating = make(chan struct{}, mutatingLimit)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, handled := serveIfLongRunning(w, r, next, longRunning)
		if handled {
			return
		}
		slots := mutating
		if slices.Contains(readOnlyVerbs, info.Verb) {
			slots = readOnly
		}
		if slots == nil {
			next.ServeHTTP(w, r)
			return
		}
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
			next.ServeHTTP(w, r)
		default:
			if isPrivileged(r) {
				next.ServeHTTP(w, r)
				return
			}
			request.MarkTerminated(r.Context(), http.StatusTooManyRequests)
			WriteStatus(w, apierrors.NewTooManyRequests("Too many requests, please try again later.", 1))
		}
	})
}

func isPrivileged(r *http.Request) bool {
	u, ok := request.UserFrom(r.Context())
	return ok && u != nil && slices.Contains(u.GetGroups(), user.SystemPrivilegedGroup)
}
