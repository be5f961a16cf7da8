// Package authenticator defines how requests are authenticated: the
// Request interface every authenticator implements and its response.
package authenticator

import (
	"context"
	"net/http"

	"github.com/kapi-dev/kapi/internal/auth/user"
)

// Response is a successful authentication.
type Response struct {
	User user.Info
	// Audiences the credential was valid for, when the authenticator knows.
	Audiences []string
}

// Request authenticates an HTTP request. ok=false with a nil error means
// "no opinion" (the credential type is not one this authenticator handles);
// an error means the credential was presented and is bad.
type Request interface {
	AuthenticateRequest(req *http.Request) (resp *Response, ok bool, err error)
}

// RequestFunc adapts a function to Request.
type RequestFunc func(req *http.Request) (*Response, bool, error)

// AuthenticateRequest calls f.
func (f RequestFunc) AuthenticateRequest(req *http.Request) (*Response, bool, error) {
	return f(req)
}

// Token authenticates a bearer token, with the same contract as Request:
// ok=false and no error is "not a token of mine"; an error is a token of
// this kind that is bad (expired, revoked, badly signed).
type Token interface {
	AuthenticateToken(ctx context.Context, token string) (resp *Response, ok bool, err error)
}

// TokenFunc adapts a function to Token.
type TokenFunc func(ctx context.Context, token string) (*Response, bool, error)

// AuthenticateToken calls f.
func (f TokenFunc) AuthenticateToken(ctx context.Context, token string) (*Response, bool, error) {
	return f(ctx, token)
}

type audiencesKey struct{}

// WithAudiences records the audiences a token must be valid for: the
// server's --api-audiences for requests, a TokenReview's spec.audiences
// for reviews.
func WithAudiences(ctx context.Context, audiences []string) context.Context {
	return context.WithValue(ctx, audiencesKey{}, audiences)
}

// AudiencesFrom returns the audiences WithAudiences recorded, if any.
func AudiencesFrom(ctx context.Context) ([]string, bool) {
	a, ok := ctx.Value(audiencesKey{}).([]string)
	return a, ok
}
