package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// LoadOrGenerateSigningKey returns the service-account signing key. With a
// path it reads the PEM private key there (RSA in PKCS#1 or PKCS#8, or
// ECDSA in SEC 1 or PKCS#8), as kube-apiserver reads
// --service-account-signing-key-file. Without one it reads the key kept at
// generateAt, generating an ECDSA P-256 key there (PKCS#8 PEM, mode 0600)
// the first time, so the tokens it signed stay valid across restarts. ES256
// is what kube-apiserver and kube-controller-manager sign with for such a
// key, and an RSA 2048 key took 50-150 ms of CPU to generate, on the path
// to a fresh server's first answer; a kept RSA key is still read.
func LoadOrGenerateSigningKey(path string, generateAt string) (crypto.Signer, error) {
	if path != "" {
		return readKeyFile(path)
	}
	if generateAt == "" {
		return nil, errors.New("service account signing key: neither a key file nor a place to keep a generated key")
	}
	key, err := readKeyFile(generateAt)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	return generateKeyFile(generateAt)
}

func readKeyFile(path string) (crypto.Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("service account signing key: %w", err)
	}
	key, err := ParsePrivateKeyPEM(data)
	if err != nil {
		return nil, fmt.Errorf("service account signing key %s: %w", path, err)
	}
	return key, nil
}

// ParsePrivateKeyPEM returns the first private key in data, skipping
// other blocks (certificates, EC PARAMETERS) as upstream's keyutil does.
func ParsePrivateKeyPEM(data []byte) (crypto.Signer, error) {
	found := false
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		found = true
		key, ok, err := parsePrivateKeyBlock(block)
		if err != nil {
			return nil, err
		}
		if ok {
			return key, nil
		}
	}
	if !found {
		return nil, errors.New("no PEM data found")
	}
	return nil, errors.New("data does not contain a valid RSA or ECDSA private key")
}

// parsePrivateKeyBlock reads one block; ok is false for blocks that hold
// no private key.
func parsePrivateKeyBlock(block *pem.Block) (crypto.Signer, bool, error) {
	switch block.Type {
	case "RSA PRIVATE KEY":
		key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
		if err != nil {
			return nil, false, fmt.Errorf("parsing RSA private key: %w", err)
		}
		return key, true, nil
	case "EC PRIVATE KEY":
		key, err := x509.ParseECPrivateKey(block.Bytes)
		if err != nil {
			return nil, false, fmt.Errorf("parsing EC private key: %w", err)
		}
		return key, true, nil
	case "PRIVATE KEY":
		key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, false, fmt.Errorf("parsing PKCS#8 private key: %w", err)
		}
		switch k := key.(type) {
		case *rsa.PrivateKey:
			return k, true, nil
		case *ecdsa.PrivateKey:
			return k, true, nil
		case ed25519.PrivateKey:
			return nil, false, errors.New("ed25519 keys cannot sign service account tokens; use RSA or ECDSA")
		default:
			return nil, false, fmt.Errorf("unsupported PKCS#8 key type %T", key)
		}
	}
	return nil, false, nil
}

// generateKeyFile makes a new key and writes it atomically: a crash never
// leaves a half-written key that the next start would fail on.
func generateKeyFile(path string) (crypto.Signer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating service account signing key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encoding service account signing key: %w", err)
	}
	data := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	if err := writeFileAtomic(path, data, 0o600); err != nil {
		return nil, fmt.Errorf("writing service account signing key %s: %w", path, err)
	}
	return key, nil
}

func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
