package filters

import (
	"log/slog"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// WithAuthentication identifies the user behind r and stores it in the
// context. A bad credential and "no authenticator had an opinion" both go
// to failed (Unauthorized when nil), which answers the 401; which groups a
// user gets (system:authenticated) is the authenticator's business. After
// success the Authorization header is removed so that no later handler — a
// proxy in particular — can forward the credential.
func WithAuthentication(next http.Handler, auth authenticator.Request, failed http.Handler, logger *slog.Logger) http.Handler {
	logger = orDiscard(logger)
	if failed == nil {
		failed = Unauthorized()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, ok, err := auth.AuthenticateRequest(r)
		if err != nil {
			logger.Info("unable to authenticate the request", "uri", r.RequestURI,
				"auditID", request.AuditIDFrom(r.Context()), "err", err)
		}
		if err != nil || !ok || resp == nil || resp.User == nil {
			failed.ServeHTTP(w, r)
			return
		}
		r.Header.Del("Authorization")
		// Anonymous HTTP/2 clients could otherwise keep a connection open
		// forever with cheap streams; upstream makes them reconnect.
		if r.ProtoMajor == 2 && resp.User.GetName() == user.Anonymous {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), resp.User)))
	})
}

// Unauthorized answers 401 Unauthorized. An HTTP/2 client that failed to
// authenticate must reconnect for its next request, as with upstream, so
// that unauthenticated streams stay as costly as HTTP/1 requests.
func Unauthorized() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 {
			w.Header().Set("Connection", "close")
		}
		WriteStatus(w, apierrors.NewUnauthorized("Unauthorized"))
	})
}
