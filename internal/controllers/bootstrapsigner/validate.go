package bootstrapsigner

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/internal/auth/authenticator/bootstrap"
)

// forSigning returns the token of a Secret that may sign at now: of the
// bootstrap token type, named bootstrap-token-<id> with that id in its
// token-id, a token-secret, not expired (the token cleaner may not have
// deleted it yet) and usage-bootstrap-signing "true".
func forSigning(s *corev1.Secret, now time.Time) (id, secret string, ok bool) {
	if s.Type != corev1.SecretTypeBootstrapToken {
		return "", "", false
	}
	nameID, ok := bootstrap.ParseSecretName(s.Name)
	if !ok {
		return "", "", false
	}
	id = string(s.Data[bootstrap.KeyTokenID])
	secret = string(s.Data[bootstrap.KeyTokenSecret])
	if id == "" || id != nameID || secret == "" {
		return "", "", false
	}
	if _, gone := bootstrap.Expiration(s, now); gone {
		return "", "", false
	}
	if string(s.Data[bootstrap.KeyUsageSigning]) != "true" {
		return "", "", false
	}
	return id, secret, true
}
