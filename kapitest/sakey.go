package kapitest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
)

// writeSAKey gives the server its own service-account signing key where
// kapi keeps a generated one, so the server reads it as on a restart.
// kapi serve generates an RSA 2048 key (RS256, what most token consumers
// expect), which costs 50–150 ms of CPU: more than the rest of a start.
// A test server's tokens are checked by the server itself, so it gets an
// ECDSA P-256 key (ES256, which kube-apiserver also accepts), made in
// well under a millisecond.
func writeSAKey(dataDir string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generating the service-account signing key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	dir := filepath.Join(dataDir, "pki")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "sa.key"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
}
