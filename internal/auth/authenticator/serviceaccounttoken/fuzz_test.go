package serviceaccounttoken

import (
	"bytes"
	"context"
	"crypto"
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// FuzzServiceAccountToken feeds arbitrary bearer tokens to the
// authenticator: none may panic and none but the one the test's key
// signed may authenticate.
func FuzzServiceAccountToken(f *testing.F) {
	fx := newFixture(f)
	valid := fx.bound(f, nil)
	f.Add(valid)
	f.Add(tamper(valid))
	f.Add("")
	f.Add("a.b.c")
	f.Add("eyJhbGciOiJub25lIn0.eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50In0.")
	f.Add(`{"protected":"x","payload":"y","signature":"z"}`)
	f.Add("eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJodHRwczovL2t1YmVybmV0ZXMuZGVmYXVsdC5zdmMuY2x1c3Rlci5sb2NhbCJ9.AAAA")
	a := New(Options{
		Issuers:      []string{issuerURL},
		Keys:         []crypto.PublicKey{fx.key.Public()},
		APIAudiences: []string{apiAud},
		Lookup:       true,
		Getter:       world(),
		Now:          func() time.Time { return t0.Add(time.Minute) },
	})
	f.Fuzz(func(t *testing.T, token string) {
		resp, ok, err := a.AuthenticateToken(context.Background(), token)
		if (ok || resp != nil) && !sameJWS(token, valid) {
			t.Fatalf("token %q authenticated as %v (err %v)", token, resp.User, err)
		}
	})
}

// sameJWS reports whether two compact tokens decode to the same bytes;
// base64 ignores unused trailing bits, so a token may be spelled two ways.
func sameJWS(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	if len(pa) != 3 || len(pb) != 3 {
		return false
	}
	for i := range pa {
		da, errA := base64.RawURLEncoding.DecodeString(pa[i])
		db, errB := base64.RawURLEncoding.DecodeString(pb[i])
		if errA != nil || errB != nil || !bytes.Equal(da, db) {
			return false
		}
	}
	return true
}
