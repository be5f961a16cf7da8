package library

import (
	"fmt"
	"net/netip"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// ipDecls is Kubernetes' IP library: ip(string), isIP(string),
// ip.isCanonical(string), string(ip), family and the address class tests.
func ipDecls() []cel.EnvOption {
	test := func(name, id string, fn func(netip.Addr) bool) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, []*cel.Type{IPType}, cel.BoolType, cel.UnaryBinding(ipUnary(func(a netip.Addr) ref.Val { return types.Bool(fn(a)) }))))
	}
	return []cel.EnvOption{
		cel.Types(IPType),
		cel.Function("ip", cel.Overload("string_to_ip", []*cel.Type{cel.StringType}, IPType, cel.UnaryBinding(stringToIP))),
		cel.Function("family", cel.MemberOverload("ip_family", []*cel.Type{IPType}, cel.IntType, cel.UnaryBinding(ipUnary(ipFamily)))),
		cel.Function("ip.isCanonical", cel.Overload("ip_is_canonical", []*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(ipIsCanonical))),
		test("isUnspecified", "ip_is_unspecified", netip.Addr.IsUnspecified),
		test("isLoopback", "ip_is_loopback", netip.Addr.IsLoopback),
		test("isLinkLocalMulticast", "ip_is_link_local_multicast", netip.Addr.IsLinkLocalMulticast),
		test("isLinkLocalUnicast", "ip_is_link_local_unicast", netip.Addr.IsLinkLocalUnicast),
		test("isGlobalUnicast", "ip_is_global_unicast", netip.Addr.IsGlobalUnicast),
		cel.Function("isIP", cel.Overload("is_ip", []*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(isIP))),
		cel.Function("string", cel.Overload("ip_to_string", []*cel.Type{IPType}, cel.StringType, cel.UnaryBinding(ipUnary(func(a netip.Addr) ref.Val { return types.String(a.String()) })))),
	}
}

// parseIP accepts what upstream accepts: no zones, no IPv4-mapped IPv6.
func parseIP(raw string) (netip.Addr, error) {
	addr, err := netip.ParseAddr(raw)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("IP Address %q parse error during conversion from string: %v", raw, err)
	}
	if addr.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("IP address %q with zone value is not allowed", raw)
	}
	if addr.Is4In6() {
		return netip.Addr{}, fmt.Errorf("IPv4-mapped IPv6 address %q is not allowed", raw)
	}
	return addr, nil
}

func stringToIP(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	addr, err := parseIP(s)
	if err != nil {
		return types.NewErr("%v", err)
	}
	return IP{addr}
}

func isIP(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	_, err := parseIP(s)
	return types.Bool(err == nil)
}

// ipIsCanonical: the canonical form is what the address prints as.
func ipIsCanonical(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	addr, err := parseIP(s)
	if err != nil {
		return types.NewErr("%v", err)
	}
	return types.Bool(addr.String() == s)
}

func ipFamily(a netip.Addr) ref.Val {
	switch {
	case a.Is4():
		return types.Int(4)
	case a.Is6():
		return types.Int(6)
	}
	return types.NewErr("IP address %q is not an IPv4 or IPv6 address", a.String())
}

func ipUnary(fn func(netip.Addr) ref.Val) func(ref.Val) ref.Val {
	return func(arg ref.Val) ref.Val {
		ip, ok := arg.(IP)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return fn(ip.Addr)
	}
}
