// Package secretbox is the "secretbox" encryption provider: XSalsa20 and
// Poly1305 (golang.org/x/crypto/nacl/secretbox) with a 32-byte key. A
// stored value is a random 24-byte nonce followed by the sealed box, as
// kube-apiserver writes it. The box authenticates the value but is not
// bound to its key in etcd.
package secretbox

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"golang.org/x/crypto/nacl/secretbox"

	"github.com/kapi-dev/kapi/internal/storage/value"
)

// NonceSize is the length of the nonce that starts a stored value.
const NonceSize = 24

var (
	errTooShort = errors.New("the stored data was shorter than the required size")
	errOpen     = errors.New("secretbox: unable to decrypt the stored data")
)

type transformer struct {
	key [32]byte
}

// NewSecretboxTransformer returns a transformer sealing values with key.
func NewSecretboxTransformer(key [32]byte) value.Transformer {
	return &transformer{key: key}
}

// TransformFromStorage opens a box written by TransformToStorage.
func (t *transformer) TransformFromStorage(_ context.Context, data []byte, _ value.Context) ([]byte, bool, error) {
	if len(data) < NonceSize+secretbox.Overhead {
		return nil, false, errTooShort
	}
	var nonce [NonceSize]byte
	copy(nonce[:], data)
	out, ok := secretbox.Open(nil, data[NonceSize:], &nonce, &t.key)
	if !ok {
		return nil, false, errOpen
	}
	return out, false, nil
}

// TransformToStorage seals data under a fresh random nonce.
func (t *transformer) TransformToStorage(_ context.Context, data []byte, _ value.Context) ([]byte, error) {
	var nonce [NonceSize]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, fmt.Errorf("secretbox: reading a nonce: %w", err)
	}
	return secretbox.Seal(nonce[:], data, &nonce, &t.key), nil
}
