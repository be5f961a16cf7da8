package kapitest

import (
	"fmt"
	"path/filepath"
	"regexp"

	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/internal/pki"
)

// unsafeFileChars are replaced in a user name to make its file name.
var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// addUser issues a client certificate signed by the server's CA, the way
// kube-apiserver reads one (common name = user, organizations = groups),
// and records the user's config.
func (s *Server) addUser(name string, groups []string) (*rest.Config, error) {
	if name == "" {
		return nil, fmt.Errorf("a user needs a name")
	}
	ca, err := pki.EnsureCA(s.certDir)
	if err != nil {
		return nil, fmt.Errorf("loading kapi's CA: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.users[name]; ok {
		return nil, fmt.Errorf("user %q added twice", name)
	}
	base := fmt.Sprintf("user-%d-%s", len(s.users), unsafeFileChars.ReplaceAllString(name, "_"))
	certPEM, keyPEM, err := ca.EnsureClientCert(filepath.Join(s.dir, "users"), base, name, groups)
	if err != nil {
		return nil, fmt.Errorf("user %q: %w", name, err)
	}
	c := rest.AnonymousClientConfig(s.admin)
	c.CertData, c.KeyData = certPEM, keyPEM
	s.users[name] = c
	return c, nil
}
