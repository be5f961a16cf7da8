package dynamiccertificates

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	netutils "k8s.io/utils/net"
)

// namedCert is an SNI certificate and the names given for it on the
// command line, if any.
type namedCert struct {
	cert  *tls.Certificate
	names []string
}

// certTable picks a serving certificate for a ClientHello. It is immutable
// once built, so handshakes read it without locks.
type certTable struct {
	def    *tls.Certificate
	byName map[string]*tls.Certificate
	// all is def then the SNI certificates in flag order: the candidates
	// when no name matches.
	all []*tls.Certificate
}

// newCertTable indexes the SNI certificates by name as upstream does:
// names given on the command line win over names read from certificates,
// and among either, an earlier pair wins over a later one. def may be nil,
// then the first SNI certificate is the default.
func newCertTable(def *tls.Certificate, sni []namedCert) *certTable {
	t := &certTable{def: def, byName: map[string]*tls.Certificate{}}
	if def != nil {
		t.all = append(t.all, def)
	}
	explicit := map[string]*tls.Certificate{}
	for i := len(sni) - 1; i >= 0; i-- {
		target := t.byName
		names := sni[i].names
		if len(names) > 0 {
			target = explicit
		} else {
			names = certificateNames(sni[i].cert.Leaf)
		}
		for _, n := range names {
			// Go lowercases the SNI name before looking it up.
			target[strings.ToLower(n)] = sni[i].cert
		}
	}
	for n, c := range explicit {
		t.byName[n] = c
	}
	for _, n := range sni {
		t.all = append(t.all, n.cert)
	}
	if t.def == nil && len(t.all) > 0 {
		t.def = t.all[0]
	}
	return t
}

// certificateNames returns the names an SNI certificate without explicit
// names serves: its common name if that looks like a (wildcard) DNS name
// and is not an IP address, and its DNS SANs. IP SANs are left out: SNI
// never carries an IP address.
func certificateNames(c *x509.Certificate) []string {
	var names []string
	cn := c.Subject.CommonName
	isIP := netutils.ParseIPSloppy(cn) != nil
	isDomain := cn == "*" || len(validation.IsDNS1123Subdomain(strings.TrimPrefix(cn, "*."))) == 0
	if !isIP && isDomain {
		names = append(names, cn)
	}
	return append(names, c.DNSNames...)
}

// lookup returns the certificate for hello: a name match, exact before
// wildcard (one leftmost label); without SNI, a certificate named for the
// local IP address the client dialed; otherwise the first candidate the
// client can use, the default one first.
func (t *certTable) lookup(hello *tls.ClientHelloInfo) *tls.Certificate {
	if len(t.all) == 1 {
		return t.all[0]
	}
	name := strings.ToLower(hello.ServerName)
	if name == "" {
		if c, ok := t.byName[localIP(hello)]; ok {
			return c
		}
	} else {
		if c, ok := t.byName[name]; ok {
			return c
		}
		labels := strings.Split(name, ".")
		labels[0] = "*"
		if c, ok := t.byName[strings.Join(labels, ".")]; ok {
			return c
		}
	}
	for _, c := range t.all {
		if hello.SupportsCertificate(c) == nil {
			return c
		}
	}
	return t.def
}

// localIP is the address the client connected to, or "" if unknown.
func localIP(hello *tls.ClientHelloInfo) string {
	if hello.Conn == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(hello.Conn.LocalAddr().String())
	if err != nil {
		return ""
	}
	return host
}
