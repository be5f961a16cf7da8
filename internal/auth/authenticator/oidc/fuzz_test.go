package oidc

import (
	"context"
	"strings"
	"testing"
)

// FuzzOIDCToken feeds arbitrary tokens to an authenticator whose issuer
// is up: none may panic and, unsigned by the issuer's key, none may
// authenticate.
func FuzzOIDCToken(f *testing.F) {
	ti := newTestIssuer(f, true)
	a := start(f, ti, Options{GroupsClaim: "groups", RequiredClaims: map[string]string{"hd": "example.com"}})
	valid := sign(f, ti.key, ti.claims())
	parts := strings.Split(valid, ".")
	f.Add(parts[0] + "." + parts[1] + ".")
	f.Add(parts[0] + "." + parts[1] + ".AAAA")
	f.Add("eyJhbGciOiJub25lIn0." + parts[1] + ".")
	f.Add("")
	f.Add("a.b.c")
	f.Add(`{"payload":"x"}`)
	f.Fuzz(func(t *testing.T, token string) {
		resp, ok, err := a.AuthenticateToken(context.Background(), token)
		if ok || resp != nil {
			t.Fatalf("token %q authenticated as %v (err %v)", token, resp.User, err)
		}
	})
}
