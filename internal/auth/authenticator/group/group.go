// Package group wraps authenticators to adjust the groups of the users they
// return.
package group

import (
	"net/http"
	"slices"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

type authenticatedGroupAdder struct {
	auth authenticator.Request
}

var _ authenticator.Request = (*authenticatedGroupAdder)(nil)

// NewAuthenticatedGroupAdder wraps a so that every user it authenticates is
// in system:authenticated, except system:anonymous and users already in
// system:authenticated or system:unauthenticated. The user is copied, never
// changed: an authenticator may hand out a shared one.
func NewAuthenticatedGroupAdder(a authenticator.Request) authenticator.Request {
	return &authenticatedGroupAdder{auth: a}
}

// AuthenticateRequest implements authenticator.Request.
func (g *authenticatedGroupAdder) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	resp, ok, err := g.auth.AuthenticateRequest(req)
	if err != nil || !ok {
		return nil, ok, err
	}
	u := resp.User
	if u.GetName() == user.Anonymous {
		return resp, true, nil
	}
	groups := u.GetGroups()
	if slices.Contains(groups, user.AllAuthenticated) || slices.Contains(groups, user.AllUnauthenticated) {
		return resp, true, nil
	}
	out := *resp
	out.User = &user.DefaultInfo{
		Name:   u.GetName(),
		UID:    u.GetUID(),
		Groups: append(slices.Clip(groups), user.AllAuthenticated),
		Extra:  u.GetExtra(),
	}
	return &out, true, nil
}
