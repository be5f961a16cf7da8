package discovery

import (
	"crypto/sha256"
	"encoding/base64"
)

// StorageVersionHash is the storageVersionHash of discovery: base64 of the
// first 8 bytes of sha256("<group>/<version>/<kind>") of the storage
// version, as upstream computes it, so clients (the storage version
// migrator) see the same values from kapi and kube-apiserver.
func StorageVersionHash(group, version, kind string) string {
	sum := sha256.Sum256([]byte(group + "/" + version + "/" + kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}
