// Package kubeconfig writes the admin kubeconfig that `kapi serve` hands to
// its user, so kubectl works against a fresh server with no setup.
package kubeconfig

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kapi-dev/kapi/internal/pki"
)

// Names used inside the admin kubeconfig.
const (
	ClusterName = "kapi"
	UserName    = "kapi-admin"
	ContextName = "kapi"
)

// WriteAdmin writes a kubeconfig for serverURL with every credential
// embedded, so it keeps working when copied elsewhere. The file holds a
// private key: it is created 0600 and replaced atomically, so a client
// reading it while kapi restarts never sees half a file. durable syncs it
// to disk first.
func WriteAdmin(path, serverURL string, caPEM, certPEM, keyPEM []byte, durable bool) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[ClusterName] = &clientcmdapi.Cluster{
		Server:                   serverURL,
		CertificateAuthorityData: caPEM,
	}
	cfg.AuthInfos[UserName] = &clientcmdapi.AuthInfo{
		ClientCertificateData: certPEM,
		ClientKeyData:         keyPEM,
	}
	cfg.Contexts[ContextName] = &clientcmdapi.Context{Cluster: ClusterName, AuthInfo: UserName}
	cfg.CurrentContext = ContextName
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return fmt.Errorf("encoding kubeconfig: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if err := pki.WriteFile(path, data, 0o600, durable); err != nil {
		return fmt.Errorf("writing kubeconfig %s: %w", path, err)
	}
	return nil
}
