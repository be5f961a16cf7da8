// Package authenticator defines how requests are authenticated: the
// Request interface every authenticator implements and its response.
package authenticator

import (
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
