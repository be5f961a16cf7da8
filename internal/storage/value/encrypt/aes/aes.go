// Package aes holds the "aesgcm" and "aescbc" encryption providers. Their
// stored layouts are kube-apiserver's:
//
//	aesgcm: 12-byte random nonce | ciphertext | 16-byte GCM tag, with the
//	        value's authenticated data (the etcd key) as additional data
//	aescbc: 16-byte random IV | AES-CBC ciphertext of the PKCS#7-padded
//	        value; nothing authenticates it
package aes

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/kapi-dev/kapi/internal/storage/value"
)

// GCMNonceSize is the length of the nonce that starts an aesgcm value and
// gcmTagSize the length of the tag that ends it; every value in etcd
// depends on them.
const (
	GCMNonceSize = 12
	gcmTagSize   = 16
)

var (
	errTooShort         = errors.New("the stored data was shorter than the required size")
	errBlockSize        = errors.New("the stored data is not a multiple of the block size")
	errInvalidPadding   = errors.New("invalid padding on input")
	errInvalidPKCS7Data = errors.New("invalid PKCS7 data (empty or not padded)")
)

type gcm struct {
	aead cipher.AEAD
}

// NewGCMTransformer returns the aesgcm transformer for block, which must
// come from crypto/aes. Each write draws a random 96-bit nonce, so a key
// should be rotated well before 2^32 writes.
func NewGCMTransformer(block cipher.Block) (value.Transformer, error) {
	// The random-nonce AEAD prepends the nonce to the sealed value, which
	// is exactly the stored layout.
	aead, err := cipher.NewGCMWithRandomNonce(block)
	if err != nil {
		return nil, err
	}
	if aead.Overhead() != GCMNonceSize+gcmTagSize {
		return nil, fmt.Errorf("unexpected AES-GCM overhead %d", aead.Overhead())
	}
	return &gcm{aead: aead}, nil
}

// TransformFromStorage opens a value sealed under dataCtx.
func (t *gcm) TransformFromStorage(_ context.Context, data []byte, dataCtx value.Context) ([]byte, bool, error) {
	if len(data) < GCMNonceSize {
		return nil, false, errTooShort
	}
	out, err := t.aead.Open(nil, nil, data, dataCtx.AuthenticatedData())
	if err != nil {
		return nil, false, err
	}
	return out, false, nil
}

// TransformToStorage seals data, binding it to dataCtx.
func (t *gcm) TransformToStorage(_ context.Context, data []byte, dataCtx value.Context) ([]byte, error) {
	return t.aead.Seal(nil, nil, data, dataCtx.AuthenticatedData()), nil
}

type cbc struct {
	block cipher.Block
}

// NewCBCTransformer returns the aescbc transformer for block. aescbc does
// not detect tampering; it exists for values kube-apiserver wrote with it.
func NewCBCTransformer(block cipher.Block) value.Transformer {
	return &cbc{block: block}
}

// TransformFromStorage decrypts an IV-prefixed, padded value.
func (t *cbc) TransformFromStorage(_ context.Context, data []byte, _ value.Context) ([]byte, bool, error) {
	const bs = aes.BlockSize
	if len(data) < bs {
		return nil, false, errTooShort
	}
	iv, body := data[:bs], data[bs:]
	if len(body)%bs != 0 {
		return nil, false, errBlockSize
	}
	if len(body) == 0 {
		// Padding always adds at least one byte, so an empty body was
		// never written by TransformToStorage.
		return nil, false, errInvalidPKCS7Data
	}
	out := make([]byte, len(body))
	cipher.NewCBCDecrypter(t.block, iv).CryptBlocks(out, body)
	return unpad(out)
}

// unpad strips PKCS#7 padding: n bytes each holding n, 1 <= n <= len.
func unpad(b []byte) ([]byte, bool, error) {
	n := int(b[len(b)-1])
	if n == 0 || n > len(b) {
		return nil, false, errInvalidPKCS7Data
	}
	for _, c := range b[len(b)-n:] {
		if int(c) != n {
			return nil, false, errInvalidPadding
		}
	}
	return b[:len(b)-n], false, nil
}

// TransformToStorage pads data, encrypts it under a fresh random IV and
// prepends the IV.
func (t *cbc) TransformToStorage(_ context.Context, data []byte, _ value.Context) ([]byte, error) {
	const bs = aes.BlockSize
	pad := bs - len(data)%bs
	out := make([]byte, bs+len(data)+pad)
	if _, err := rand.Read(out[:bs]); err != nil {
		return nil, fmt.Errorf("aescbc: reading an IV: %w", err)
	}
	copy(out[bs:], data)
	for i := bs + len(data); i < len(out); i++ {
		out[i] = byte(pad)
	}
	cipher.NewCBCEncrypter(t.block, out[:bs]).CryptBlocks(out[bs:], out[bs:])
	return out, nil
}
