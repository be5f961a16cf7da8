// Package serviceaccount issues and reads service-account tokens: the
// bound JWTs of the TokenRequest API, signed with the server's
// service-account signing key.
package serviceaccount

import _ "github.com/go-jose/go-jose/v4" // the JWT library the token code uses
