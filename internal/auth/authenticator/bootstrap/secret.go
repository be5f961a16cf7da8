package bootstrap

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Secret keys the bootstrap controllers read besides the authenticator's.
const (
	// KeyTokenID and KeyTokenSecret hold the two halves of the token.
	KeyTokenID     = keyTokenID
	KeyTokenSecret = keyTokenSecret
	// KeyUsageSigning marks a token that may sign the cluster-info
	// ConfigMap.
	KeyUsageSigning = "usage-bootstrap-signing"
)

// Expiration reads the Secret's expiration field: how long the token has
// left, or that it has expired. A Secret without one never expires (0,
// false); one that does not parse counts as expired, as upstream.
func Expiration(s *corev1.Secret, now time.Time) (remaining time.Duration, isExpired bool) {
	raw := string(s.Data[keyExpiration])
	if raw == "" {
		return 0, false
	}
	at, err := time.Parse(time.RFC3339, raw)
	if err != nil {
		return 0, true
	}
	remaining = at.Sub(now)
	if remaining <= 0 {
		return 0, true
	}
	return remaining, false
}

// ParseSecretName returns the token id of a Secret named
// bootstrap-token-<id>, id six characters of [a-z0-9].
func ParseSecretName(name string) (id string, ok bool) {
	id, ok = strings.CutPrefix(name, SecretPrefix)
	if !ok || len(id) != idLength || !lowerAlnum(id) {
		return "", false
	}
	return id, true
}
