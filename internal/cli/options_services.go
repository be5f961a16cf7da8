package cli

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/kapi-dev/kapi/internal/controlplane"
)

// serviceOptions are the flags of service networking and service-account
// tokens, named as kube-apiserver names them.
type serviceOptions struct {
	ServiceClusterIPRange            string
	ServiceNodePortRange             string
	ServiceAccountSigningKeyFile     string
	ServiceAccountIssuers            []string
	APIAudiences                     []string
	ServiceAccountMaxTokenExpiration time.Duration
}

func defaultServiceOptions() serviceOptions {
	return serviceOptions{
		ServiceClusterIPRange: "10.0.0.0/24",
		ServiceNodePortRange:  "30000-32767",
		ServiceAccountIssuers: []string{controlplane.DefaultServiceAccountIssuer},
	}
}

func (o *serviceOptions) addFlags(sets *namedFlagSets) {
	fs := sets.FlagSet("networking")
	fs.StringVar(&o.ServiceClusterIPRange, "service-cluster-ip-range", o.ServiceClusterIPRange, "A CIDR notation IP range from which to assign service cluster IPs. The first address is the kubernetes service's.")
	fs.StringVar(&o.ServiceNodePortRange, "service-node-port-range", o.ServiceNodePortRange, "A port range to reserve for services with NodePort visibility, e.g. '30000-32767' or '30000+2768'. Inclusive at both ends.")
	fs = sets.FlagSet("authentication")
	fs.StringVar(&o.ServiceAccountSigningKeyFile, "service-account-signing-key-file", o.ServiceAccountSigningKeyFile, "Path to the file that contains the current private key of the service account token issuer. Empty generates one into <data-dir>/pki/sa.key on first start.")
	fs.StringSliceVar(&o.ServiceAccountIssuers, "service-account-issuer", o.ServiceAccountIssuers, "Identifier of the service account token issuer (the iss claim). The first is used to issue tokens.")
	fs.StringSliceVar(&o.APIAudiences, "api-audiences", o.APIAudiences, "Identifiers of the API. Tokens requested without audiences get these; defaults to the first --service-account-issuer.")
	fs.DurationVar(&o.ServiceAccountMaxTokenExpiration, "service-account-max-token-expiration", o.ServiceAccountMaxTokenExpiration, "The maximum validity duration of a token created by the service account token issuer. 0 means no limit.")
}

func (o *serviceOptions) validate() []error {
	var errs []error
	if _, err := parseServiceCIDR(o.ServiceClusterIPRange); err != nil {
		errs = append(errs, err)
	}
	if _, _, err := parsePortRange(o.ServiceNodePortRange); err != nil {
		errs = append(errs, err)
	}
	if len(o.ServiceAccountIssuers) == 0 {
		errs = append(errs, fmt.Errorf("--service-account-issuer must not be empty"))
	}
	for _, iss := range o.ServiceAccountIssuers {
		if strings.Contains(iss, ":") {
			if u, err := url.Parse(iss); err != nil || u.Scheme != "https" && u.Scheme != "http" && u.Scheme != "" {
				errs = append(errs, fmt.Errorf("--service-account-issuer %q contained a ':' but was not a valid URL", iss))
			}
		}
	}
	if o.ServiceAccountMaxTokenExpiration < 0 || (o.ServiceAccountMaxTokenExpiration > 0 && o.ServiceAccountMaxTokenExpiration < time.Hour) {
		errs = append(errs, fmt.Errorf("--service-account-max-token-expiration %v must be 0 or at least 1h", o.ServiceAccountMaxTokenExpiration))
	}
	return errs
}

// fill puts valid options into c.
func (o *serviceOptions) fill(c *controlplane.Config) {
	c.ServiceClusterIPRange, _ = parseServiceCIDR(o.ServiceClusterIPRange)
	c.ServiceNodePortBase, c.ServiceNodePortSize, _ = parsePortRange(o.ServiceNodePortRange)
	c.ServiceAccountSigningKeyFile = o.ServiceAccountSigningKeyFile
	c.ServiceAccountIssuers = o.ServiceAccountIssuers
	c.APIAudiences = o.APIAudiences
	if len(c.APIAudiences) == 0 && len(o.ServiceAccountIssuers) > 0 {
		c.APIAudiences = []string{o.ServiceAccountIssuers[0]}
	}
	c.ServiceAccountMaxTokenExpiration = o.ServiceAccountMaxTokenExpiration
}

// parseServiceCIDR parses --service-cluster-ip-range: one IPv4 or IPv6
// CIDR, not larger than upstream allows (a /12 for IPv4, 2^20 addresses
// for IPv6).
func parseServiceCIDR(s string) (netip.Prefix, error) {
	if strings.Contains(s, ",") {
		return netip.Prefix{}, fmt.Errorf("--service-cluster-ip-range %q: dual-stack service ranges are not supported yet; give one CIDR", s)
	}
	p, err := netip.ParsePrefix(strings.TrimSpace(s))
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("--service-cluster-ip-range %q is not a valid CIDR: %w", s, err)
	}
	if p.Masked() != p {
		return netip.Prefix{}, fmt.Errorf("--service-cluster-ip-range %q has host bits set; did you mean %s?", s, p.Masked())
	}
	bits := p.Addr().BitLen()
	if bits-p.Bits() > 20 {
		return netip.Prefix{}, fmt.Errorf("--service-cluster-ip-range %q is too large; for %d-bit addresses, the mask must be >= %d", s, bits, bits-20)
	}
	if bits-p.Bits() < 2 {
		return netip.Prefix{}, fmt.Errorf("--service-cluster-ip-range %q is too small; it needs room for at least two service IPs", s)
	}
	return p, nil
}

// parsePortRange parses "base-max" or "base+offset" (inclusive), the forms
// kube-apiserver accepts, into a base and a size.
func parsePortRange(s string) (base, size int, err error) {
	bad := func(reason string) (int, int, error) {
		return 0, 0, fmt.Errorf("--service-node-port-range %q: %s", s, reason)
	}
	var lo, hi int
	switch {
	case strings.Contains(s, "-"):
		a, b, _ := strings.Cut(s, "-")
		l, err1 := strconv.Atoi(strings.TrimSpace(a))
		h, err2 := strconv.Atoi(strings.TrimSpace(b))
		if err1 != nil || err2 != nil {
			return bad("want two port numbers like 30000-32767")
		}
		lo, hi = l, h
	case strings.Contains(s, "+"):
		a, b, _ := strings.Cut(s, "+")
		l, err1 := strconv.Atoi(strings.TrimSpace(a))
		off, err2 := strconv.Atoi(strings.TrimSpace(b))
		if err1 != nil || err2 != nil || off < 0 {
			return bad("want a port and an offset like 30000+2767")
		}
		lo, hi = l, l+off
	default:
		p, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return bad("not a port range")
		}
		lo, hi = p, p
	}
	if lo < 1 || hi > 65535 || lo > hi {
		return bad("ports must be between 1 and 65535 and the range must not be reversed")
	}
	return lo, hi - lo + 1, nil
}
