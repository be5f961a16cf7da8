package library

import (
	"fmt"
	"net/netip"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// cidrDecls is Kubernetes' CIDR library: cidr(string), isCIDR(string),
// containsIP, containsCIDR (of a string or a value), ip, prefixLength,
// masked and string(cidr).
func cidrDecls() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Types(CIDRType),
		cel.Function("cidr", cel.Overload("string_to_cidr", []*cel.Type{cel.StringType}, CIDRType, cel.UnaryBinding(stringToCIDR))),
		cel.Function("containsIP",
			cel.MemberOverload("cidr_contains_ip_string", []*cel.Type{CIDRType, cel.StringType}, cel.BoolType, cel.BinaryBinding(func(c, s ref.Val) ref.Val { return cidrContainsIP(c, stringToIP(s)) })),
			cel.MemberOverload("cidr_contains_ip_ip", []*cel.Type{CIDRType, IPType}, cel.BoolType, cel.BinaryBinding(cidrContainsIP))),
		cel.Function("containsCIDR",
			cel.MemberOverload("cidr_contains_cidr_string", []*cel.Type{CIDRType, cel.StringType}, cel.BoolType, cel.BinaryBinding(func(c, s ref.Val) ref.Val { return cidrContainsCIDR(c, stringToCIDR(s)) })),
			cel.MemberOverload("cidr_contains_cidr", []*cel.Type{CIDRType, CIDRType}, cel.BoolType, cel.BinaryBinding(cidrContainsCIDR))),
		cel.Function("ip", cel.MemberOverload("cidr_ip", []*cel.Type{CIDRType}, IPType, cel.UnaryBinding(cidrUnary(func(p netip.Prefix) ref.Val { return IP{p.Addr()} })))),
		cel.Function("prefixLength", cel.MemberOverload("cidr_prefix_length", []*cel.Type{CIDRType}, cel.IntType, cel.UnaryBinding(cidrUnary(func(p netip.Prefix) ref.Val { return types.Int(p.Bits()) })))),
		cel.Function("masked", cel.MemberOverload("cidr_masked", []*cel.Type{CIDRType}, CIDRType, cel.UnaryBinding(cidrUnary(func(p netip.Prefix) ref.Val { return CIDR{p.Masked()} })))),
		cel.Function("isCIDR", cel.Overload("is_cidr", []*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(isCIDR))),
		cel.Function("string", cel.Overload("cidr_to_string", []*cel.Type{CIDRType}, cel.StringType, cel.UnaryBinding(cidrUnary(func(p netip.Prefix) ref.Val { return types.String(p.String()) })))),
	}
}

func parseCIDR(raw string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(raw)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("network address parse error during conversion from string: %v", err)
	}
	if p.Addr().Is4In6() {
		return netip.Prefix{}, fmt.Errorf("IPv4-mapped IPv6 address %q is not allowed", raw)
	}
	return p, nil
}

// stringToCIDR repeats the parse error's prefix, as upstream's message
// does.
func stringToCIDR(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	p, err := parseCIDR(s)
	if err != nil {
		return types.NewErr("network address parse error during conversion from string: %v", err)
	}
	return CIDR{p}
}

func isCIDR(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	_, err := parseCIDR(s)
	return types.Bool(err == nil)
}

func cidrContainsIP(c, other ref.Val) ref.Val {
	cidr, ok := c.(CIDR)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	ip, ok := other.(IP)
	if !ok {
		return types.MaybeNoSuchOverloadErr(c)
	}
	return types.Bool(cidr.Contains(ip.Addr))
}

// cidrContainsCIDR: other lies within c (same family, no shorter prefix).
func cidrContainsCIDR(c, other ref.Val) ref.Val {
	cidr, ok := c.(CIDR)
	if !ok {
		return types.MaybeNoSuchOverloadErr(c)
	}
	in, ok := other.(CIDR)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(cidr.Overlaps(in.Prefix) && cidr.Bits() <= in.Bits())
}

func cidrUnary(fn func(netip.Prefix) ref.Val) func(ref.Val) ref.Val {
	return func(arg ref.Val) ref.Val {
		c, ok := arg.(CIDR)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return fn(c.Prefix)
	}
}
