package library

import (
	"fmt"
	"net/netip"
	"net/url"
	"reflect"

	"github.com/blang/semver/v4"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The CEL types of the libraries' values, named as upstream names them.
var (
	QuantityType = cel.ObjectType("kubernetes.Quantity")
	URLType      = cel.ObjectType("kubernetes.URL")
	SemverType   = cel.ObjectType("kubernetes.Semver")
	FormatType   = cel.ObjectType("kubernetes.NamedFormat")
	IPType       = cel.OpaqueType("net.IP")
	CIDRType     = cel.OpaqueType("net.CIDR")
)

// convertType is ConvertToType shared by every value type: a value
// converts to its own type and to type.
func convertType(v ref.Val, own *types.Type, to ref.Type) ref.Val {
	switch to {
	case own:
		return v
	case types.TypeType:
		return own
	}
	return types.NewErr("type conversion error from '%s' to '%s'", own, to)
}

// nativeOf is ConvertToNative shared by the value types: the Go value, or
// its string form.
func nativeOf(name string, native any, str func() string, to reflect.Type) (any, error) {
	if native != nil && reflect.TypeOf(native).AssignableTo(to) {
		return native, nil
	}
	if str != nil && reflect.TypeOf("").AssignableTo(to) {
		return str(), nil
	}
	return nil, fmt.Errorf("type conversion error from '%s' to '%v'", name, to)
}

// Quantity is a resource.Quantity in CEL.
type Quantity struct{ *resource.Quantity }

func (q Quantity) ConvertToNative(t reflect.Type) (any, error) {
	return nativeOf("Quantity", q.Quantity, q.Quantity.String, t)
}
func (q Quantity) ConvertToType(t ref.Type) ref.Val { return convertType(q, QuantityType, t) }
func (q Quantity) Type() ref.Type                   { return QuantityType }
func (q Quantity) Value() any                       { return q.Quantity }
func (q Quantity) Equal(other ref.Val) ref.Val {
	o, ok := other.(Quantity)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(q.Quantity.Equal(*o.Quantity))
}

// IP is an IP address in CEL.
type IP struct{ netip.Addr }

func (ip IP) ConvertToNative(t reflect.Type) (any, error) {
	return nativeOf("IP", ip.Addr, ip.Addr.String, t)
}
func (ip IP) ConvertToType(t ref.Type) ref.Val { return convertType(ip, IPType, t) }
func (ip IP) Type() ref.Type                   { return IPType }
func (ip IP) Value() any                       { return ip.Addr }
func (ip IP) Equal(other ref.Val) ref.Val {
	o, ok := other.(IP)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(ip.Addr == o.Addr)
}

// CIDR is a network prefix in CEL.
type CIDR struct{ netip.Prefix }

func (c CIDR) ConvertToNative(t reflect.Type) (any, error) {
	return nativeOf("CIDR", c.Prefix, c.Prefix.String, t)
}
func (c CIDR) ConvertToType(t ref.Type) ref.Val { return convertType(c, CIDRType, t) }
func (c CIDR) Type() ref.Type                   { return CIDRType }
func (c CIDR) Value() any                       { return c.Prefix }
func (c CIDR) Equal(other ref.Val) ref.Val {
	o, ok := other.(CIDR)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(c.Prefix == o.Prefix)
}

// URL is a parsed URL in CEL.
type URL struct{ *url.URL }

func (u URL) ConvertToNative(t reflect.Type) (any, error) {
	return nativeOf("URL", u.URL, u.URL.String, t)
}
func (u URL) ConvertToType(t ref.Type) ref.Val { return convertType(u, URLType, t) }
func (u URL) Type() ref.Type                   { return URLType }
func (u URL) Value() any                       { return u.URL }
func (u URL) Equal(other ref.Val) ref.Val {
	o, ok := other.(URL)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(*u.URL == *o.URL)
}

// Semver is a semantic version in CEL.
type Semver struct{ semver.Version }

func (v Semver) ConvertToNative(t reflect.Type) (any, error) {
	return nativeOf("Semver", v.Version, v.Version.String, t)
}
func (v Semver) ConvertToType(t ref.Type) ref.Val { return convertType(v, SemverType, t) }
func (v Semver) Type() ref.Type                   { return SemverType }
func (v Semver) Value() any                       { return v.Version }
func (v Semver) Equal(other ref.Val) ref.Val {
	o, ok := other.(Semver)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(v.Version.EQ(o.Version))
}

// Format is a named string format (format.named) in CEL.
type Format struct {
	Name     string
	validate func(string) []string
}

func (f Format) ConvertToNative(t reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion error from 'Format' to '%v'", t)
}
func (f Format) ConvertToType(t ref.Type) ref.Val { return convertType(f, FormatType, t) }
func (f Format) Type() ref.Type                   { return FormatType }
func (f Format) Value() any                       { return f }
func (f Format) Equal(other ref.Val) ref.Val {
	o, ok := other.(Format)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(f.Name == o.Name)
}
