// Package loopback authenticates the server's own clients, as
// kube-apiserver's loopback token does: a random bearer token made at
// start and kept only in memory, standing for the user system:apiserver
// in system:masters.
package loopback

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"

	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// User is the name the server's own requests run as.
const User = "system:apiserver"

// Authenticator recognises the one token it made.
type Authenticator struct {
	token []byte
	user  *user.DefaultInfo
}

var _ authenticator.Token = (*Authenticator)(nil)

// New makes a fresh token and the user it stands for (with a new UID).
func New() *Authenticator {
	raw := make([]byte, 32)
	_, _ = rand.Read(raw) // never fails (crypto/rand panics instead)
	return &Authenticator{
		token: []byte(base64.RawURLEncoding.EncodeToString(raw)),
		user: &user.DefaultInfo{
			Name:   User,
			UID:    string(uuid.NewUUID()),
			Groups: []string{user.AllAuthenticated, user.SystemPrivilegedGroup},
		},
	}
}

// Token is the bearer token the server's loopback clients send.
func (a *Authenticator) Token() string { return string(a.token) }

// AuthenticateToken answers for the loopback token only; any other token
// is left to the other authenticators.
func (a *Authenticator) AuthenticateToken(_ context.Context, token string) (*authenticator.Response, bool, error) {
	if subtle.ConstantTimeCompare([]byte(token), a.token) != 1 {
		return nil, false, nil
	}
	u := *a.user
	u.Groups = append([]string(nil), a.user.Groups...)
	return &authenticator.Response{User: &u}, true, nil
}
