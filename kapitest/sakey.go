package kapitest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// saKeyPEM is one service-account signing key for every server of the
// process, generated on first use. kapi generates an RSA 2048 key for a
// fresh data directory, which costs tens of milliseconds of CPU: more than
// the rest of a start. Each server still gets its own copy of the file,
// where kapi serve keeps its generated key, so the server reads it exactly
// as on a restart; tokens of one test's server are not meant to be
// checked against another's.
var saKeyPEM = sync.OnceValues(func() ([]byte, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
})

// writeSAKey puts the process's key where kapi keeps its generated one.
func writeSAKey(dataDir string) error {
	data, err := saKeyPEM()
	if err != nil {
		return fmt.Errorf("generating the service-account signing key: %w", err)
	}
	dir := filepath.Join(dataDir, "pki")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "sa.key"), data, 0o600)
}
