package webhook

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// AuthInfoResolver gives the credentials for calling a webhook, from the
// kubeconfig of a WebhookAdmissionConfiguration (kubeConfigFile): users
// named by the webhook's host[:port] ("name.namespace.svc:port" for a
// service), a "*.suffix" pattern, "*", or the current context's user.
type AuthInfoResolver struct {
	config *clientcmdapi.Config
}

// LoadAuthInfo reads the kubeconfig at path, which must be absolute as
// upstream requires. Credentials kapi cannot present (exec plugins, auth
// providers, impersonation) are refused rather than ignored.
func LoadAuthInfo(path string) (*AuthInfoResolver, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("kubeConfigFile: Invalid value: %q: must be an absolute file path", path)
	}
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("kubeConfigFile %s: %w", path, err)
	}
	if err := clientcmd.ResolveLocalPaths(cfg); err != nil {
		return nil, fmt.Errorf("kubeConfigFile %s: %w", path, err)
	}
	for name, ai := range cfg.AuthInfos {
		switch {
		case ai.Exec != nil:
			return nil, fmt.Errorf("kubeConfigFile %s: user %q: exec credential plugins are not supported by kapi", path, name)
		case ai.AuthProvider != nil:
			return nil, fmt.Errorf("kubeConfigFile %s: user %q: auth providers are not supported by kapi", path, name)
		case ai.Impersonate != "" || ai.ImpersonateUID != "" || len(ai.ImpersonateGroups) > 0 || len(ai.ImpersonateUserExtra) > 0:
			return nil, fmt.Errorf("kubeConfigFile %s: user %q: impersonation is not supported by kapi", path, name)
		}
	}
	return &AuthInfoResolver{config: cfg}, nil
}

// forHost is upstream's lookup order for target (host or host:port): the
// exact name, "*.suffix" patterns, the same without a :443 port, "*",
// then the current context's user; nil means anonymous.
func (r *AuthInfoResolver) forHost(target string) *clientcmdapi.AuthInfo {
	users := r.config.AuthInfos
	lookup := func(t string) *clientcmdapi.AuthInfo {
		if ai, ok := users[t]; ok {
			return ai
		}
		steps := strings.Split(t, ".")
		for i := 1; i < len(steps); i++ {
			if ai, ok := users["*."+strings.Join(steps[i:], ".")]; ok {
				return ai
			}
		}
		return nil
	}
	if ai := lookup(target); ai != nil {
		return ai
	}
	if host, port, err := net.SplitHostPort(target); err == nil && port == "443" {
		if ai := lookup(host); ai != nil {
			return ai
		}
	}
	if ai, ok := users["*"]; ok {
		return ai
	}
	if c, ok := r.config.Contexts[r.config.CurrentContext]; ok && c.AuthInfo != "" {
		return users[c.AuthInfo]
	}
	return nil
}

// credentials are what one user presents: a client certificate and an
// Authorization header.
type credentials struct {
	cert          *tls.Certificate
	authorization func() (string, error)
}

func credentialsOf(ai *clientcmdapi.AuthInfo) (*credentials, error) {
	c := &credentials{}
	certData, keyData := ai.ClientCertificateData, ai.ClientKeyData
	var err error
	if len(certData) == 0 && ai.ClientCertificate != "" {
		if certData, err = os.ReadFile(ai.ClientCertificate); err != nil {
			return nil, err
		}
	}
	if len(keyData) == 0 && ai.ClientKey != "" {
		if keyData, err = os.ReadFile(ai.ClientKey); err != nil {
			return nil, err
		}
	}
	if len(certData) > 0 || len(keyData) > 0 {
		cert, err := tls.X509KeyPair(certData, keyData)
		if err != nil {
			return nil, fmt.Errorf("client certificate: %w", err)
		}
		c.cert = &cert
	}
	switch {
	case ai.Token != "":
		c.authorization = func() (string, error) { return "Bearer " + ai.Token, nil }
	case ai.TokenFile != "":
		// Read on each call, so a rotated token is picked up.
		file := ai.TokenFile
		c.authorization = func() (string, error) {
			b, err := os.ReadFile(file)
			if err != nil {
				return "", err
			}
			return "Bearer " + strings.TrimSpace(string(b)), nil
		}
	case ai.Username != "" || ai.Password != "":
		req, _ := http.NewRequest(http.MethodGet, "/", nil)
		req.SetBasicAuth(ai.Username, ai.Password)
		basic := req.Header.Get("Authorization")
		c.authorization = func() (string, error) { return basic, nil }
	}
	return c, nil
}

// authTransport adds the Authorization header to every request.
type authTransport struct {
	next          http.RoundTripper
	authorization func() (string, error)
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	v, err := t.authorization()
	if err != nil {
		return nil, errors.Join(errors.New("reading webhook credentials"), err)
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", v)
	return t.next.RoundTrip(req)
}

// CloseIdleConnections lets the client cache free the connections of an
// evicted client.
func (t *authTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
