package dynamiccertificates

import (
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
)

// tlsVersions are the --tls-min-version values.
var tlsVersions = map[string]uint16{
	"VersionTLS10": tls.VersionTLS10,
	"VersionTLS11": tls.VersionTLS11,
	"VersionTLS12": tls.VersionTLS12,
	"VersionTLS13": tls.VersionTLS13,
}

// DefaultTLSVersion is the minimum version when --tls-min-version is unset.
const DefaultTLSVersion = tls.VersionTLS12

// ParseTLSVersion maps --tls-min-version values (VersionTLS10, VersionTLS11,
// VersionTLS12, VersionTLS13) to crypto/tls constants; "" is
// DefaultTLSVersion, as upstream.
func ParseTLSVersion(s string) (uint16, error) {
	if s == "" {
		return DefaultTLSVersion, nil
	}
	if v, ok := tlsVersions[s]; ok {
		return v, nil
	}
	return 0, fmt.Errorf("unknown tls version %q", s)
}

// cipherSuiteIDs returns every name --tls-cipher-suites accepts. Upstream
// accepts Go's insecure suites too (warning when serving with them) and two
// pre-RFC names of the ChaCha20 suites.
func cipherSuiteIDs() map[string]uint16 {
	ids := map[string]uint16{
		"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305":   tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
		"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305": tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	}
	for _, s := range tls.CipherSuites() {
		ids[s.Name] = s.ID
	}
	for _, s := range tls.InsecureCipherSuites() {
		ids[s.Name] = s.ID
	}
	return ids
}

// ParseCipherSuites maps --tls-cipher-suites names (IANA names as
// tls.CipherSuites and tls.InsecureCipherSuites list them) to ids, keeping
// their order. No names is nil: Go's default suites.
func ParseCipherSuites(names []string) ([]uint16, error) {
	if len(names) == 0 {
		return nil, nil
	}
	known := cipherSuiteIDs()
	ids := make([]uint16, 0, len(names))
	for _, name := range names {
		id, ok := known[name]
		if !ok {
			return nil, fmt.Errorf("Cipher suite %s not supported or doesn't exist", name) // upstream's wording, capital and all
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// InsecureCipherSuiteNames returns the names of those of ids that Go lists
// as insecure, for the warning upstream logs when serving with them.
func InsecureCipherSuiteNames(ids []uint16) []string {
	var names []string
	for _, id := range ids {
		for _, s := range tls.InsecureCipherSuites() {
			if s.ID == id {
				names = append(names, s.Name)
			}
		}
	}
	return names
}

// SNICertKey is one --tls-sni-cert-key value: "cert.crt,key.key" or
// "cert.crt,key.key:*.example.com,foo.example.com". Without Names the
// certificate's own names are used.
type SNICertKey struct {
	CertFile, KeyFile string
	Names             []string
}

// String is the flag form of k.
func (k SNICertKey) String() string {
	s := k.CertFile + "," + k.KeyFile
	if len(k.Names) > 0 {
		s += ":" + strings.Join(k.Names, ",")
	}
	return s
}

// ParseSNICertKey parses one --tls-sni-cert-key value. Like upstream it
// splits at the first colon, so the names may not be empty once given, and
// trims spaces around every part.
func ParseSNICertKey(s string) (SNICertKey, error) {
	var k SNICertKey
	pair, names, hasNames := strings.Cut(s, ":")
	if hasNames {
		names = strings.TrimSpace(names)
		if names == "" {
			return SNICertKey{}, errors.New("empty names list is not allowed")
		}
		for name := range strings.SplitSeq(names, ",") {
			k.Names = append(k.Names, strings.TrimSpace(name))
		}
	}
	files := strings.Split(strings.TrimSpace(pair), ",")
	if len(files) != 2 {
		return SNICertKey{}, errors.New("expected comma separated certificate and key file paths")
	}
	k.CertFile, k.KeyFile = strings.TrimSpace(files[0]), strings.TrimSpace(files[1])
	return k, nil
}
