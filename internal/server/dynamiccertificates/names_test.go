package dynamiccertificates

import (
	"crypto/tls"
	"net"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// addrConn is a net.Conn whose local address is fixed: all lookup reads.
type addrConn struct {
	net.Conn
	local net.Addr
}

func (c addrConn) LocalAddr() net.Addr { return c.local }

func helloTo(localIP string) *tls.ClientHelloInfo {
	return &tls.ClientHelloInfo{Conn: addrConn{local: &net.TCPAddr{IP: net.ParseIP(localIP), Port: 6443}}}
}

func TestCertTableLookup(t *testing.T) {
	ca := newTestCA(t, "ca")
	def := ca.tlsCert(t, certSpec{id: "default", cn: "default", dnsNames: []string{"default.example.com"}})
	sni := []namedCert{
		{cert: ca.tlsCert(t, certSpec{id: "sans", cn: "Sans Cert", dnsNames: []string{"a.example.com", "*.wild.example.com", "dup.example.com"}})},
		{cert: ca.tlsCert(t, certSpec{id: "explicit", dnsNames: []string{"ignored.example.com"}}), names: []string{"a.example.com", "UPPER.example.com", "127.0.0.1"}},
		{cert: ca.tlsCert(t, certSpec{id: "cn", cn: "cn.example.com"})},
		{cert: ca.tlsCert(t, certSpec{id: "wildcard-cn", cn: "*.star.example.com"})},
		{cert: ca.tlsCert(t, certSpec{id: "ip-cn", cn: "10.0.0.1", ips: []net.IP{net.ParseIP("10.0.0.1")}})},
		{cert: ca.tlsCert(t, certSpec{id: "exact", dnsNames: []string{"x.wild.example.com"}})},
		{cert: ca.tlsCert(t, certSpec{id: "later-dup", dnsNames: []string{"dup.example.com"}})},
		{cert: ca.tlsCert(t, certSpec{id: "explicit-wild", dnsNames: []string{"b.other.example.com"}}), names: []string{"*.other.example.com"}},
	}
	table := newCertTable(def, sni)

	tests := []struct {
		name  string
		hello *tls.ClientHelloInfo
		want  string
	}{
		{name: "a SAN", hello: &tls.ClientHelloInfo{ServerName: "dup.example.com"}, want: "sans"},
		{name: "explicit names beat SANs", hello: &tls.ClientHelloInfo{ServerName: "a.example.com"}, want: "explicit"},
		{name: "explicit names hide the certificate's own", hello: &tls.ClientHelloInfo{ServerName: "ignored.example.com"}, want: "default"},
		{name: "explicit names are matched without case", hello: &tls.ClientHelloInfo{ServerName: "upper.EXAMPLE.com"}, want: "explicit"},
		{name: "the common name", hello: &tls.ClientHelloInfo{ServerName: "cn.example.com"}, want: "cn"},
		{name: "a common name that is no DNS name is ignored", hello: &tls.ClientHelloInfo{ServerName: "sans cert"}, want: "default"},
		{name: "a wildcard common name", hello: &tls.ClientHelloInfo{ServerName: "foo.star.example.com"}, want: "wildcard-cn"},
		{name: "a wildcard SAN", hello: &tls.ClientHelloInfo{ServerName: "y.wild.example.com"}, want: "sans"},
		{name: "exact beats wildcard", hello: &tls.ClientHelloInfo{ServerName: "x.wild.example.com"}, want: "exact"},
		{name: "a wildcard covers one label only", hello: &tls.ClientHelloInfo{ServerName: "a.b.wild.example.com"}, want: "default"},
		{name: "an explicit wildcard", hello: &tls.ClientHelloInfo{ServerName: "c.other.example.com"}, want: "explicit-wild"},
		{name: "an IP common name is never a name", hello: &tls.ClientHelloInfo{ServerName: "10.0.0.1"}, want: "default"},
		{name: "the default pair's names are not indexed", hello: &tls.ClientHelloInfo{ServerName: "default.example.com"}, want: "default"},
		{name: "unknown name", hello: &tls.ClientHelloInfo{ServerName: "nope.example.org"}, want: "default"},
		{name: "no SNI, an explicitly named local IP", hello: helloTo("127.0.0.1"), want: "explicit"},
		{name: "no SNI, another local IP", hello: helloTo("10.0.0.1"), want: "default"},
		{name: "no SNI, no connection", hello: &tls.ClientHelloInfo{}, want: "default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := certID(table.lookup(tt.hello)); got != tt.want {
				t.Errorf("lookup(%q) = %s, want %s", tt.hello.ServerName, got, tt.want)
			}
		})
	}
}

func TestCertTableDefaults(t *testing.T) {
	ca := newTestCA(t, "ca")
	def := ca.tlsCert(t, certSpec{id: "default", dnsNames: []string{"default.example.com"}})
	one := ca.tlsCert(t, certSpec{id: "one", dnsNames: []string{"one.example.com"}})
	two := ca.tlsCert(t, certSpec{id: "two", dnsNames: []string{"two.example.com"}})
	tests := []struct {
		name   string
		def    *tls.Certificate
		sni    []namedCert
		server string
		want   string
	}{
		{name: "only a default", def: def, server: "one.example.com", want: "default"},
		{name: "only one SNI pair serves every name", sni: []namedCert{{cert: one}}, server: "two.example.com", want: "one"},
		{name: "without a default the first SNI pair is it", sni: []namedCert{{cert: one}, {cert: two}}, server: "x.example.com", want: "one"},
		{name: "without a default, names still select", sni: []namedCert{{cert: one}, {cert: two}}, server: "two.example.com", want: "two"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := certID(newCertTable(tt.def, tt.sni).lookup(&tls.ClientHelloInfo{ServerName: tt.server}))
			if got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// TestCertTableClientSupport: with no name match, a client that cannot use
// the default certificate gets the first one it can use, as Go's own
// selection among tls.Config.Certificates does upstream.
func TestCertTableClientSupport(t *testing.T) {
	ca := newTestCA(t, "ca")
	def := ca.tlsCert(t, certSpec{id: "default-ecdsa"})
	rsaCert := ca.tlsCert(t, certSpec{id: "rsa", rsa: true, dnsNames: []string{"rsa.example.com"}})
	table := newCertTable(def, []namedCert{{cert: rsaCert}})
	// No SNI: with a name, Go also wants the certificate to be valid for it.
	rsaOnly := &tls.ClientHelloInfo{
		SupportedVersions: []uint16{tls.VersionTLS12},
		CipherSuites:      []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256},
		SignatureSchemes:  []tls.SignatureScheme{tls.PSSWithSHA256},
		SupportedCurves:   []tls.CurveID{tls.X25519},
		SupportedPoints:   []uint8{0},
	}
	if got := certID(table.lookup(rsaOnly)); got != "rsa" {
		t.Errorf("RSA-only client got %s, want rsa", got)
	}
	ecdsaToo := *rsaOnly
	ecdsaToo.CipherSuites = append(ecdsaToo.CipherSuites, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)
	ecdsaToo.SignatureSchemes = append(ecdsaToo.SignatureSchemes, tls.ECDSAWithP256AndSHA256)
	ecdsaToo.SupportedCurves = append(ecdsaToo.SupportedCurves, tls.CurveP256)
	if got := certID(table.lookup(&ecdsaToo)); got != "default-ecdsa" {
		t.Errorf("ECDSA-capable client got %s, want default-ecdsa", got)
	}
}

func TestCertificateNames(t *testing.T) {
	ca := newTestCA(t, "ca")
	tests := []struct {
		spec certSpec
		want []string
	}{
		{spec: certSpec{cn: "example.com", dnsNames: []string{"a.example.com"}}, want: []string{"example.com", "a.example.com"}},
		{spec: certSpec{cn: "*", dnsNames: nil}, want: []string{"*"}},
		{spec: certSpec{cn: "*.example.com"}, want: []string{"*.example.com"}},
		{spec: certSpec{cn: "kube-apiserver admin", dnsNames: []string{"b.example.com"}}, want: []string{"b.example.com"}},
		{spec: certSpec{cn: "192.168.0.1", ips: []net.IP{net.ParseIP("192.168.0.1")}}, want: nil},
		{spec: certSpec{cn: "", ips: []net.IP{net.ParseIP("::1")}}, want: nil},
		{spec: certSpec{cn: "Upper.Example.com"}, want: nil},
	}
	for _, tt := range tests {
		got := certificateNames(ca.tlsCert(t, tt.spec).Leaf)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("certificateNames(CN %q, SANs %v) (-want +got):\n%s", tt.spec.cn, tt.spec.dnsNames, diff)
		}
	}
}
