// Package anonymous authenticates every request as system:anonymous, the
// last authenticator in the chain when --anonymous-auth is on.
package anonymous

import (
	"net/http"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// New returns an authenticator that answers every request with user
// system:anonymous in group system:unauthenticated. The response carries
// the audiences the request asked for, so the audience check passes.
func New() authenticator.Request {
	return authenticator.RequestFunc(func(req *http.Request) (*authenticator.Response, bool, error) {
		auds, _ := authenticator.AudiencesFrom(req.Context())
		return &authenticator.Response{
			User:      &user.DefaultInfo{Name: user.Anonymous, Groups: []string{user.AllUnauthenticated}},
			Audiences: auds,
		}, true, nil
	})
}
