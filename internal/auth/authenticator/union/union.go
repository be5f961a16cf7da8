// Package union combines request authenticators: the first one that
// recognises the credential decides.
package union

import (
	"errors"
	"net/http"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
)

type unionAuthenticator struct {
	authenticators []authenticator.Request
	failOnError    bool
}

// New returns an authenticator that asks each of authenticators in order
// and returns the first success. Errors do not stop the walk — a bad
// client certificate must not hide a valid bearer token on the same
// request — and are returned, joined, only when nobody succeeded.
func New(authenticators ...authenticator.Request) authenticator.Request {
	return &unionAuthenticator{authenticators: authenticators}
}

// NewFailOnError is like New but stops at the first error.
func NewFailOnError(authenticators ...authenticator.Request) authenticator.Request {
	return &unionAuthenticator{authenticators: authenticators, failOnError: true}
}

func (u *unionAuthenticator) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	var errs []error
	for _, a := range u.authenticators {
		resp, ok, err := a.AuthenticateRequest(req)
		if err != nil {
			if u.failOnError {
				return nil, false, err
			}
			errs = append(errs, err)
			continue
		}
		if ok {
			return resp, true, nil
		}
	}
	return nil, false, errors.Join(errs...)
}
