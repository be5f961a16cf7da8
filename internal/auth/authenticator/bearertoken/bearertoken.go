// Package bearertoken authenticates requests by the bearer token they carry:
// in the Authorization header, or — for browser websockets, which cannot set
// headers — in a "base64url.bearer.authorization.k8s.io.<token>"
// subprotocol of Sec-WebSocket-Protocol. The token itself is checked by an
// authenticator.Token.
package bearertoken

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/httpstream"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/endpoints/warning"
)

const (
	// wsProtocolPrefix marks the websocket subprotocol that carries a token.
	wsProtocolPrefix = "base64url.bearer.authorization.k8s.io."
	wsProtocolHeader = "Sec-WebSocket-Protocol"

	spaceWarning = "the provided Authorization header contains extra space before the bearer token, and is ignored"
)

// errInvalidToken is all a client's bad token earns: the token authenticator
// said "not mine", so there is nothing more specific to tell.
var errInvalidToken = errors.New("invalid bearer token")

type tokenAuthenticator struct {
	auth authenticator.Token
}

var _ authenticator.Request = (*tokenAuthenticator)(nil)

// New authenticates "Authorization: Bearer <token>" and the websocket
// bearer subprotocol with auth. A request with neither, or with an empty
// token, is no opinion; a token auth does not accept is an error
// ("invalid bearer token" unless auth gave its own). On success the
// Authorization header is left for the authentication filter to remove;
// the token subprotocol is removed here, since only this code knows it.
func New(auth authenticator.Token) authenticator.Request {
	return &tokenAuthenticator{auth: auth}
}

// AuthenticateRequest implements authenticator.Request. A bad header token
// does not hide a good websocket token, as with two authenticators in a
// union upstream.
func (a *tokenAuthenticator) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	resp, ok, headerErr := a.fromHeader(req)
	if ok {
		return resp, true, nil
	}
	resp, ok, wsErr := a.fromWebSocket(req)
	if ok {
		return resp, true, nil
	}
	return nil, false, errors.Join(headerErr, wsErr)
}

func (a *tokenAuthenticator) fromHeader(req *http.Request) (*authenticator.Response, bool, error) {
	token, extraSpace := parseAuthorization(req.Header.Get("Authorization"))
	if token == "" {
		if extraSpace {
			warning.AddWarning(req.Context(), "", spaceWarning)
		}
		return nil, false, nil
	}
	return a.check(req, token)
}

// parseAuthorization returns the token of a "Bearer <token>" header value
// (scheme case-insensitive, one space; anything after a further space is
// ignored, as upstream). extraSpace reports "Bearer  token", which upstream
// rejects with a warning rather than guessing.
func parseAuthorization(value string) (token string, extraSpace bool) {
	value = strings.TrimSpace(value)
	scheme, rest, found := strings.Cut(value, " ")
	if !found || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token, _, more := strings.Cut(rest, " ")
	if token == "" {
		return "", more
	}
	return token, false
}

func (a *tokenAuthenticator) fromWebSocket(req *http.Request) (*authenticator.Response, bool, error) {
	if !isWebSocket(req) {
		return nil, false, nil
	}
	token, others, err := parseProtocols(req.Header.Values(wsProtocolHeader))
	if err != nil || token == "" {
		return nil, false, err
	}
	resp, ok, err := a.check(req, token)
	if ok {
		// The token must not be echoed back or proxied further.
		req.Header.Set(wsProtocolHeader, strings.Join(others, ","))
	}
	return resp, ok, err
}

// parseProtocols finds the token subprotocol among the comma-separated
// values and returns the decoded token and the other subprotocols. A token
// needs a companion protocol, since the server must echo one back.
func parseProtocols(values []string) (token string, others []string, err error) {
	seen := false
	for _, v := range values {
		for p := range strings.SplitSeq(v, ",") {
			p = strings.TrimSpace(p)
			encoded, isToken := strings.CutPrefix(p, wsProtocolPrefix)
			if !isToken {
				others = append(others, p)
				continue
			}
			if seen {
				return "", nil, errors.New("multiple base64.bearer.authorization tokens specified")
			}
			seen = true
			decoded, err := base64.RawURLEncoding.DecodeString(encoded)
			if err != nil {
				return "", nil, errors.New("invalid base64.bearer.authorization token encoding")
			}
			if !utf8.Valid(decoded) {
				return "", nil, errors.New("invalid base64.bearer.authorization token")
			}
			token = string(decoded)
		}
	}
	if token != "" && len(others) == 0 {
		return "", nil, errors.New("missing additional subprotocol")
	}
	return token, others, nil
}

// isWebSocket reports a websocket upgrade request.
func isWebSocket(req *http.Request) bool {
	return strings.EqualFold(req.Header.Get("Upgrade"), "websocket") && httpstream.IsUpgradeRequest(req)
}

func (a *tokenAuthenticator) check(req *http.Request, token string) (*authenticator.Response, bool, error) {
	resp, ok, err := a.auth.AuthenticateToken(req.Context(), token)
	if ok {
		return resp, true, nil
	}
	if err == nil {
		err = errInvalidToken
	}
	return nil, false, err
}
