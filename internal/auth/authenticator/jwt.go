package authenticator

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// UntrustedIssuer reads "iss" from a compact JWT without verifying it, so
// that a token authenticator can tell its issuer's tokens from others
// before doing any work; "" when token is not a JWT.
func UntrustedIssuer(token string) string {
	if strings.HasPrefix(strings.TrimSpace(token), "{") {
		return ""
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var claims struct {
		Issuer string `json:"iss"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return ""
	}
	return claims.Issuer
}
