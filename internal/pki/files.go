package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// PEM block types.
const (
	certBlock    = "CERTIFICATE"
	ecKeyBlock   = "EC PRIVATE KEY"
	pkcs8Block   = "PRIVATE KEY"
	certFileMode = 0o644
	keyFileMode  = 0o600
)

// pair is a certificate with its key, as read from or written to disk.
type pair struct {
	cert    *x509.Certificate
	key     crypto.Signer
	certPEM []byte
	keyPEM  []byte
}

// readPair reads dir/certName and dir/keyName. It returns fs.ErrNotExist
// (wrapped) when the certificate is absent: the certificate is written last,
// so its presence is what marks a pair as complete.
func readPair(dir, certName, keyName string) (*pair, error) {
	certPath, keyPath := filepath.Join(dir, certName), filepath.Join(dir, keyName)
	certPEM, err := os.ReadFile(certPath)
	if err != nil {
		return nil, err
	}
	keyPEM, err := os.ReadFile(keyPath)
	if err != nil {
		// Not wrapped: a certificate without its key is not "absent", and
		// must not be mistaken for it by callers that generate on absence.
		return nil, fmt.Errorf("%s exists but its key cannot be read: %v", certPath, err)
	}
	certs, err := ParseCertsPEM(certPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", certPath, err)
	}
	key, err := ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", keyPath, err)
	}
	p := &pair{cert: certs[0], key: key, certPEM: certPEM, keyPEM: keyPEM}
	if !keyMatches(p.cert, p.key) {
		return nil, fmt.Errorf("%s does not hold the key of %s", keyPath, certPath)
	}
	return p, nil
}

// writePair writes the key first and the certificate last, each atomically,
// so a crash never leaves a certificate next to a key that is not its own.
func writePair(dir, certName, keyName string, p *pair, durable bool) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := WriteFile(filepath.Join(dir, keyName), p.keyPEM, keyFileMode, durable); err != nil {
		return err
	}
	return WriteFile(filepath.Join(dir, certName), p.certPEM, certFileMode, durable)
}

// WriteFileAtomic writes through a temporary file in the same directory and
// renames it over path, so readers see the old or the new content, never a
// mix. The temporary file gets the final mode before any byte is written,
// so a key is never readable by others, even briefly. kapi writes every
// credential file (certificates, keys, kubeconfigs) this way.
func WriteFileAtomic(path string, data []byte, mode fs.FileMode) error {
	return WriteFile(path, data, mode, true)
}

// WriteFile is WriteFileAtomic, syncing the file to disk before the
// rename only when durable.
func WriteFile(path string, data []byte, mode fs.FileMode, durable bool) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(f.Name())
		}
	}()
	if err = f.Chmod(mode); err != nil {
		_ = f.Close()
		return err
	}
	if _, err = f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if durable {
		if err = f.Sync(); err != nil {
			_ = f.Close()
			return err
		}
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// ParseCertsPEM returns every certificate in data, leaf first.
func ParseCertsPEM(data []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != certBlock {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, err
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, errors.New("no PEM certificate found")
	}
	return certs, nil
}

// ParsePrivateKeyPEM reads the first private key in data, in SEC 1, PKCS #8
// or PKCS #1 form.
func ParsePrivateKeyPEM(data []byte) (crypto.Signer, error) {
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return nil, errors.New("no PEM private key found")
		}
		var key any
		var err error
		switch block.Type {
		case ecKeyBlock:
			key, err = x509.ParseECPrivateKey(block.Bytes)
		case pkcs8Block:
			key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
		case "RSA PRIVATE KEY":
			key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
		default:
			continue
		}
		if err != nil {
			return nil, err
		}
		signer, ok := key.(crypto.Signer)
		if !ok {
			return nil, fmt.Errorf("unsupported private key type %T", key)
		}
		return signer, nil
	}
}

func encodeCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: certBlock, Bytes: der})
}

func encodeKey(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: ecKeyBlock, Bytes: der}), nil
}

// keyMatches reports whether key is the private half of cert's public key.
func keyMatches(cert *x509.Certificate, key crypto.Signer) bool {
	pub, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool })
	return ok && pub.Equal(cert.PublicKey)
}
