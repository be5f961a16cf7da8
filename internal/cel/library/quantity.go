package library

import (
	"errors"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/api/resource"
)

// quantityDecls is Kubernetes' quantity library: quantity(string),
// isQuantity(string), sign, comparisons, add/sub (of a quantity or an
// int), asInteger, isInteger and asApproximateFloat.
func quantityDecls() []cel.EnvOption {
	q, s, i := QuantityType, cel.StringType, cel.IntType
	member := func(id string, args []*cel.Type, out *cel.Type, fn func(x, y *resource.Quantity) ref.Val) cel.FunctionOpt {
		return cel.MemberOverload(id, args, out, cel.BinaryBinding(quantityBinary(fn)))
	}
	return []cel.EnvOption{
		cel.Function("quantity", cel.Overload("string_to_quantity", []*cel.Type{s}, q, cel.UnaryBinding(stringToQuantity))),
		cel.Function("isQuantity", cel.Overload("is_quantity_string", []*cel.Type{s}, cel.BoolType, cel.UnaryBinding(isQuantity))),
		cel.Function("sign", cel.Overload("quantity_sign", []*cel.Type{q}, i, cel.UnaryBinding(quantityUnary(func(x *resource.Quantity) ref.Val { return types.Int(x.Sign()) })))),
		cel.Function("isGreaterThan", member("quantity_is_greater_than", []*cel.Type{q, q}, cel.BoolType, func(x, y *resource.Quantity) ref.Val { return types.Bool(x.Cmp(*y) == 1) })),
		cel.Function("isLessThan", member("quantity_is_less_than", []*cel.Type{q, q}, cel.BoolType, func(x, y *resource.Quantity) ref.Val { return types.Bool(x.Cmp(*y) == -1) })),
		cel.Function("compareTo", member("quantity_compare_to", []*cel.Type{q, q}, i, func(x, y *resource.Quantity) ref.Val { return types.Int(x.Cmp(*y)) })),
		cel.Function("asApproximateFloat", cel.MemberOverload("quantity_get_float", []*cel.Type{q}, cel.DoubleType, cel.UnaryBinding(quantityUnary(func(x *resource.Quantity) ref.Val { return types.Double(x.AsApproximateFloat64()) })))),
		cel.Function("asInteger", cel.MemberOverload("quantity_get_int", []*cel.Type{q}, i, cel.UnaryBinding(quantityUnary(quantityAsInteger)))),
		cel.Function("isInteger", cel.MemberOverload("quantity_is_integer", []*cel.Type{q}, cel.BoolType, cel.UnaryBinding(quantityUnary(func(x *resource.Quantity) ref.Val { _, ok := x.AsInt64(); return types.Bool(ok) })))),
		cel.Function("add",
			member("quantity_add", []*cel.Type{q, q}, q, quantitySum(1)),
			cel.MemberOverload("quantity_add_int", []*cel.Type{q, i}, q, cel.BinaryBinding(quantityWithInt(quantitySum(1))))),
		cel.Function("sub",
			member("quantity_sub", []*cel.Type{q, q}, q, quantitySum(-1)),
			cel.MemberOverload("quantity_sub_int", []*cel.Type{q, i}, q, cel.BinaryBinding(quantityWithInt(quantitySum(-1))))),
	}
}

func stringToQuantity(arg ref.Val) ref.Val {
	str, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	q, err := resource.ParseQuantity(str)
	if err != nil {
		return types.WrapErr(err)
	}
	return Quantity{&q}
}

func isQuantity(arg ref.Val) ref.Val {
	str, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	_, err := resource.ParseQuantity(str)
	return types.Bool(err == nil)
}

func quantityAsInteger(x *resource.Quantity) ref.Val {
	v, ok := x.AsInt64()
	if !ok {
		return types.WrapErr(errors.New("cannot convert value to integer"))
	}
	return types.Int(v)
}

// quantitySum adds (sign 1) or subtracts (sign -1) y from a copy of x.
func quantitySum(sign int) func(x, y *resource.Quantity) ref.Val {
	return func(x, y *resource.Quantity) ref.Val {
		out := x.DeepCopy()
		if sign > 0 {
			out.Add(*y)
		} else {
			out.Sub(*y)
		}
		return Quantity{&out}
	}
}

func quantityUnary(fn func(*resource.Quantity) ref.Val) func(ref.Val) ref.Val {
	return func(arg ref.Val) ref.Val {
		x, ok := arg.Value().(*resource.Quantity)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return fn(x)
	}
}

func quantityBinary(fn func(x, y *resource.Quantity) ref.Val) func(ref.Val, ref.Val) ref.Val {
	return func(a, b ref.Val) ref.Val {
		x, ok1 := a.Value().(*resource.Quantity)
		y, ok2 := b.Value().(*resource.Quantity)
		if !ok1 || !ok2 {
			return types.MaybeNoSuchOverloadErr(a)
		}
		return fn(x, y)
	}
}

// quantityWithInt applies fn with the int argument as a decimal quantity.
func quantityWithInt(fn func(x, y *resource.Quantity) ref.Val) func(ref.Val, ref.Val) ref.Val {
	return func(a, b ref.Val) ref.Val {
		x, ok1 := a.Value().(*resource.Quantity)
		n, ok2 := b.Value().(int64)
		if !ok1 || !ok2 {
			return types.MaybeNoSuchOverloadErr(a)
		}
		return fn(x, resource.NewQuantity(n, resource.DecimalExponent))
	}
}
