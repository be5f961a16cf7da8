package serviceaccount

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// ParsePublicKeysPEM reads every key of a --service-account-key-file:
// public keys (PKIX or PKCS#1), certificates, and private keys, whose
// public halves are used.
func ParsePublicKeysPEM(data []byte) ([]crypto.PublicKey, error) {
	var keys []crypto.PublicKey
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		switch block.Type {
		case "PUBLIC KEY":
			k, err := x509.ParsePKIXPublicKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("parsing public key: %w", err)
			}
			keys = append(keys, k)
		case "RSA PUBLIC KEY":
			k, err := x509.ParsePKCS1PublicKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("parsing RSA public key: %w", err)
			}
			keys = append(keys, k)
		case "CERTIFICATE":
			cert, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("parsing certificate: %w", err)
			}
			keys = append(keys, cert.PublicKey)
		default:
			signer, ok, err := parsePrivateKeyBlock(block)
			if err != nil {
				return nil, err
			}
			if ok {
				keys = append(keys, signer.Public())
			}
		}
	}
	if len(keys) == 0 {
		return nil, errors.New("data does not contain any valid RSA or ECDSA public keys")
	}
	return keys, nil
}
