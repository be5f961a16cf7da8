// Package identity is the transformer that stores values unchanged (the
// "identity" provider of an EncryptionConfiguration). It refuses to read a
// value that carries the encrypted-data prefix, so that, listed before an
// encrypting provider while encryption is being turned off, it leaves
// encrypted values to the provider that can read them.
package identity

import (
	"bytes"
	"context"
	"errors"

	"github.com/kapi-dev/kapi/internal/storage/value"
)

// encryptedPrefix starts every value an encrypting provider wrote; JSON
// starts with '{' and the protobuf envelope with "k8s\x00", so plain values
// never do.
var encryptedPrefix = []byte("k8s:enc:")

// ErrEncryptedData is returned when identity is asked to read encrypted
// data.
var ErrEncryptedData = errors.New("identity transformer tried to read encrypted data")

type transformer struct{}

// NewEncryptCheckTransformer returns the identity transformer.
func NewEncryptCheckTransformer() value.Transformer { return transformer{} }

// TransformFromStorage returns data unless it is encrypted.
func (transformer) TransformFromStorage(_ context.Context, data []byte, _ value.Context) ([]byte, bool, error) {
	if bytes.HasPrefix(data, encryptedPrefix) {
		return nil, false, ErrEncryptedData
	}
	return data, false, nil
}

// TransformToStorage returns data.
func (transformer) TransformToStorage(_ context.Context, data []byte, _ value.Context) ([]byte, error) {
	return data, nil
}
