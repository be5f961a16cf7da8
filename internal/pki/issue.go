package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"slices"
	"strings"
)

// servingName is the common name of the generated serving certificate;
// clients match SANs, never this.
const servingName = "kapi"

// EnsureServingCert returns a serving certificate and key for localhost,
// 127.0.0.1, ::1 and hosts (names or IP addresses), reusing serving.crt in
// dir when this CA signed it, it covers every requested name and it is
// fresh; otherwise it issues and writes a new one.
func (ca *CA) EnsureServingCert(dir string, hosts []string) (certPEM, keyPEM []byte, err error) {
	dnsNames, ips := subjectAltNames(hosts)
	ok := func(c *x509.Certificate) bool { return coversNames(c, dnsNames, ips) }
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: servingName},
		DNSNames:    dnsNames,
		IPAddresses: ips,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	return ca.ensureLeaf(dir, ServingCertFile, ServingKeyFile, x509.ExtKeyUsageServerAuth, ok, tmpl)
}

// EnsureClientCert returns a client certificate for user name in groups,
// stored as <base>.crt and <base>.key in dir, reusing them when this CA
// signed them for exactly that identity and they are fresh.
func (ca *CA) EnsureClientCert(dir, base, name string, groups []string) (certPEM, keyPEM []byte, err error) {
	ok := func(c *x509.Certificate) bool {
		return c.Subject.CommonName == name && sameSet(c.Subject.Organization, groups)
	}
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: name, Organization: slices.Clone(groups)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	return ca.ensureLeaf(dir, base+".crt", base+".key", x509.ExtKeyUsageClientAuth, ok, tmpl)
}

// ensureLeaf reuses the pair in dir when it chains to ca for usage, is fresh
// and satisfies matches; else it signs tmpl with a new key and writes it.
// Unreadable leaf files are replaced: unlike the CA, nothing depends on them.
func (ca *CA) ensureLeaf(dir, certName, keyName string, usage x509.ExtKeyUsage,
	matches func(*x509.Certificate) bool, tmpl *x509.Certificate) ([]byte, []byte, error) {
	if p, err := readPair(dir, certName, keyName); err == nil && ca.signedFor(p.cert, usage) && fresh(p.cert, ca.opts) && matches(p.cert) {
		return p.certPEM, p.keyPEM, nil
	}
	p, err := ca.issue(tmpl)
	if err != nil {
		return nil, nil, fmt.Errorf("issuing %s: %w", certName, err)
	}
	if err := writePair(dir, certName, keyName, p, !ca.opts.noSync); err != nil {
		return nil, nil, err
	}
	return p.certPEM, p.keyPEM, nil
}

func (ca *CA) signedFor(cert *x509.Certificate, usage x509.ExtKeyUsage) bool {
	_, err := cert.Verify(x509.VerifyOptions{
		Roots:       ca.CertPool(),
		CurrentTime: ca.opts.now(),
		KeyUsages:   []x509.ExtKeyUsage{usage},
	})
	return err == nil
}

// issue signs tmpl with a fresh P-256 key. The leaf never outlives the CA,
// which would only produce a certificate that fails verification early.
func (ca *CA) issue(tmpl *x509.Certificate) (*pair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := ca.opts.now()
	tmpl.NotBefore = now.Add(-backdate)
	tmpl.NotAfter = now.Add(LeafValidity)
	if tmpl.NotAfter.After(ca.Cert.NotAfter) {
		tmpl.NotAfter = ca.Cert.NotAfter
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.BasicConstraintsValid = true
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.key)
	if err != nil {
		return nil, err
	}
	return newPair(der, key)
}

// subjectAltNames splits hosts into DNS names and IPs, always adding the
// loopback names. Unspecified addresses (0.0.0.0, ::) are dropped: they are
// bind addresses, never what a client dials.
func subjectAltNames(hosts []string) ([]string, []net.IP) {
	dnsNames := []string{"localhost"}
	ips := []net.IP{net.IPv4(127, 0, 0, 1).To4(), net.IPv6loopback}
	for _, h := range hosts {
		h = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(h), "["), "]")
		if h == "" {
			continue
		}
		if ip := net.ParseIP(h); ip != nil {
			if v4 := ip.To4(); v4 != nil {
				ip = v4
			}
			if !ip.IsUnspecified() && !slices.ContainsFunc(ips, ip.Equal) {
				ips = append(ips, ip)
			}
			continue
		}
		if h = strings.ToLower(h); !slices.Contains(dnsNames, h) {
			dnsNames = append(dnsNames, h)
		}
	}
	return dnsNames, ips
}

func coversNames(c *x509.Certificate, dnsNames []string, ips []net.IP) bool {
	for _, n := range dnsNames {
		if !slices.ContainsFunc(c.DNSNames, func(have string) bool { return strings.EqualFold(have, n) }) {
			return false
		}
	}
	for _, ip := range ips {
		if !slices.ContainsFunc(c.IPAddresses, ip.Equal) {
			return false
		}
	}
	return true
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}
