// Package requestheader authenticates requests relayed by a trusted front
// proxy (--requestheader-* flags): the proxy proves itself with a client
// certificate from its own CA and names the user in request headers.
//
// Because the headers are only trustworthy from the proxy, this
// authenticator deletes them from every request it sees, whatever the
// outcome; it must therefore come first in the union, before any
// authenticator that could succeed and end the walk.
package requestheader

import (
	"crypto/x509"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// Options configures New.
type Options struct {
	// ClientCA returns the pool of --requestheader-client-ca-file
	// (reloadable). nil, or a nil pool, turns the authenticator off.
	ClientCA func() *x509.CertPool
	// AllowedNames are --requestheader-allowed-names: common names the
	// proxy's client certificate may have; empty allows any certificate
	// signed by ClientCA.
	AllowedNames []string
	// UsernameHeaders are tried in order; the first non-empty one names
	// the user. UIDHeaders likewise give the uid. Every value of every
	// GroupHeaders header is a group. A header starting with one of
	// ExtraHeaderPrefixes adds its values to the extra named by the rest
	// of its name, lower-cased and percent-decoded.
	UsernameHeaders, UIDHeaders, GroupHeaders, ExtraHeaderPrefixes []string
}

type proxyAuthenticator struct {
	clientCA                                  func() *x509.CertPool
	allowedNames                              []string
	usernameHeaders, uidHeaders, groupHeaders []string
	extraPrefixes                             []string
}

var _ authenticator.Request = (*proxyAuthenticator)(nil)

// New returns the front-proxy authenticator. A request without a client
// certificate, with no ClientCA configured, or without a username header is
// no opinion; a certificate that does not verify against ClientCA for
// client auth, or whose common name is not allowed, is an error. The
// configured headers are removed from the request in every case. Header
// names are trimmed; blank ones are ignored (flag validation rejects them).
func New(o Options) authenticator.Request {
	return &proxyAuthenticator{
		clientCA:        o.ClientCA,
		allowedNames:    slices.Clone(o.AllowedNames),
		usernameHeaders: trimmed(o.UsernameHeaders),
		uidHeaders:      trimmed(o.UIDHeaders),
		groupHeaders:    trimmed(o.GroupHeaders),
		extraPrefixes:   trimmed(o.ExtraHeaderPrefixes),
	}
}

func trimmed(names []string) []string {
	var out []string
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// AuthenticateRequest implements authenticator.Request.
func (a *proxyAuthenticator) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	// The response holds copies of the values, so clearing afterwards is safe.
	defer a.clearHeaders(req.Header)
	return a.authenticate(req)
}

func (a *proxyAuthenticator) authenticate(req *http.Request) (*authenticator.Response, bool, error) {
	if req.TLS == nil || len(req.TLS.PeerCertificates) == 0 || a.clientCA == nil {
		return nil, false, nil
	}
	roots := a.clientCA()
	if roots == nil {
		return nil, false, nil
	}
	if err := a.verifyProxy(req.TLS.PeerCertificates, roots); err != nil {
		return nil, false, err
	}
	name := firstValue(req.Header, a.usernameHeaders)
	if name == "" {
		return nil, false, nil
	}
	return &authenticator.Response{User: &user.DefaultInfo{
		Name:   name,
		UID:    firstValue(req.Header, a.uidHeaders),
		Groups: allValues(req.Header, a.groupHeaders),
		Extra:  extras(req.Header, a.extraPrefixes),
	}}, true, nil
}

// verifyProxy checks the client certificate chains to the proxy CA for
// client auth and has an allowed common name.
func (a *proxyAuthenticator) verifyProxy(certs []*x509.Certificate, roots *x509.CertPool) error {
	intermediates := x509.NewCertPool()
	for _, c := range certs[1:] {
		intermediates.AddCert(c)
	}
	leaf := certs[0]
	if _, err := leaf.Verify(x509.VerifyOptions{
		Roots:         roots,
		Intermediates: intermediates,
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}); err != nil {
		return fmt.Errorf("verifying front-proxy client certificate: %w", err)
	}
	if len(a.allowedNames) > 0 && !slices.Contains(a.allowedNames, leaf.Subject.CommonName) {
		return fmt.Errorf("x509: subject with cn=%s is not in the allowed list", leaf.Subject.CommonName)
	}
	return nil
}

func firstValue(h http.Header, names []string) string {
	for _, n := range names {
		if v := h.Get(n); v != "" {
			return v
		}
	}
	return ""
}

func allValues(h http.Header, names []string) []string {
	out := []string{}
	for _, n := range names {
		for _, v := range h.Values(n) {
			if v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// extras collects the prefixed headers. Prefixes are walked in order and
// header names sorted within one, so the values of an extra key come in a
// stable order even when two spellings of it are present.
func extras(h http.Header, prefixes []string) map[string][]string {
	out := map[string][]string{}
	if len(prefixes) == 0 {
		return out
	}
	names := slices.Sorted(maps.Keys(h))
	for _, p := range prefixes {
		for _, name := range names {
			if hasPrefixFold(name, p) {
				key := extraKey(name[len(p):])
				out[key] = append(out[key], h[name]...)
			}
		}
	}
	return out
}

// extraKey turns the rest of a header name into an extra key: lower-cased,
// then percent-decoded so keys such as "scopes.example.com/x" survive the
// header-name alphabet. An undecodable name is kept as it is, lower-cased,
// rather than dropped.
func extraKey(encoded string) string {
	lower := strings.ToLower(encoded)
	key, err := url.PathUnescape(lower)
	if err != nil {
		return lower
	}
	return key
}

// clearHeaders deletes every configured header in any spelling — the map
// may hold keys that are not in canonical form — so no later handler can
// mistake a client's header for the proxy's.
func (a *proxyAuthenticator) clearHeaders(h http.Header) {
	for name := range h {
		if a.isAuthHeader(name) {
			delete(h, name)
		}
	}
}

func (a *proxyAuthenticator) isAuthHeader(name string) bool {
	for _, names := range [][]string{a.usernameHeaders, a.uidHeaders, a.groupHeaders} {
		for _, n := range names {
			if strings.EqualFold(name, n) {
				return true
			}
		}
	}
	for _, p := range a.extraPrefixes {
		if hasPrefixFold(name, p) {
			return true
		}
	}
	return false
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
