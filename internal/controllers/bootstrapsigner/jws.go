package bootstrapsigner

import (
	"fmt"
	"strings"

	jose "github.com/go-jose/go-jose/v4"
)

// minHS256Key is go-jose's shortest HS256 key; a token secret (16
// characters) is padded with zero bytes up to it, as kubeadm's verifier
// expects.
const minHS256Key = 32

// DetachedSignature is the JWS (RFC 7515 appendix F) of content, HS256
// with the token secret as key and the token id as "kid", in compact form
// with the payload left out: "<header>..<signature>", what kubeadm's
// discovery verifies.
func DetachedSignature(content, tokenID, tokenSecret string) (string, error) {
	key := []byte(tokenSecret)
	if len(key) < minHS256Key {
		padded := make([]byte, minHS256Key)
		copy(padded, key)
		key = padded
	}
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: jose.HS256, Key: &jose.JSONWebKey{Key: key, KeyID: tokenID}},
		// go-jose puts no kid in the header for a symmetric key by itself.
		&jose.SignerOptions{ExtraHeaders: map[jose.HeaderKey]any{"kid": tokenID}},
	)
	if err != nil {
		return "", fmt.Errorf("an HS256 signer for token %s: %w", tokenID, err)
	}
	signed, err := signer.Sign([]byte(content))
	if err != nil {
		return "", fmt.Errorf("signing with token %s: %w", tokenID, err)
	}
	compact, err := signed.CompactSerialize()
	if err != nil {
		return "", err
	}
	parts := strings.Split(compact, ".")
	if len(parts) != 3 {
		return "", fmt.Errorf("a compact JWS has three parts, got %d", len(parts))
	}
	return parts[0] + ".." + parts[2], nil
}
