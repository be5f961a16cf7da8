// Package union combines request authenticators: the first one that
// recognises the credential decides.
package union

import (
	"context"
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

type unionTokens []authenticator.Token

// NewTokens combines token authenticators as New combines request
// authenticators: the first success wins, and errors are returned,
// joined, only when nobody succeeded.
func NewTokens(authenticators ...authenticator.Token) authenticator.Token {
	return unionTokens(authenticators)
}

func (u unionTokens) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	var errs []error
	for _, a := range u {
		resp, ok, err := a.AuthenticateToken(ctx, token)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			return resp, true, nil
		}
	}
	return nil, false, errors.Join(errs...)
}
