package cel

import (
	"regexp"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// comparableTypes are the element types the Kubernetes list library orders.
var comparableTypes = []struct {
	name string
	t    *cel.Type
}{
	{"int", cel.IntType}, {"uint", cel.UintType}, {"double", cel.DoubleType},
	{"bool", cel.BoolType}, {"string", cel.StringType}, {"bytes", cel.BytesType},
	{"duration", cel.DurationType}, {"timestamp", cel.TimestampType},
}

// listsLib is Kubernetes' list library: isSorted, sum, min, max, indexOf
// and lastIndexOf.
func listsLib() cel.EnvOption {
	var isSorted, minO, maxO []cel.FunctionOpt
	for _, c := range comparableTypes {
		lt := cel.ListType(c.t)
		isSorted = append(isSorted, cel.MemberOverload("list_"+c.name+"_is_sorted_bool", []*cel.Type{lt}, cel.BoolType, cel.UnaryBinding(listIsSorted)))
		minO = append(minO, cel.MemberOverload("list_"+c.name+"_min_"+c.name, []*cel.Type{lt}, c.t, cel.UnaryBinding(listExtreme(types.IntOne))))
		maxO = append(maxO, cel.MemberOverload("list_"+c.name+"_max_"+c.name, []*cel.Type{lt}, c.t, cel.UnaryBinding(listExtreme(types.IntNegOne))))
	}
	var sum []cel.FunctionOpt
	for _, c := range []struct {
		name string
		t    *cel.Type
		zero ref.Val
	}{{"int", cel.IntType, types.IntZero}, {"uint", cel.UintType, types.Uint(0)}, {"double", cel.DoubleType, types.Double(0)}, {"duration", cel.DurationType, types.Duration{}}} {
		zero := c.zero
		sum = append(sum, cel.MemberOverload("list_"+c.name+"_sum_"+c.name, []*cel.Type{cel.ListType(c.t)}, c.t, cel.UnaryBinding(func(v ref.Val) ref.Val { return listSum(v, zero) })))
	}
	a := cel.TypeParamType("A")
	la := cel.ListType(a)
	return cel.Lib(&library{opts: []cel.EnvOption{
		cel.Function("isSorted", isSorted...),
		cel.Function("sum", sum...),
		cel.Function("min", minO...),
		cel.Function("max", maxO...),
		cel.Function("indexOf", cel.MemberOverload("list_a_index_of_int", []*cel.Type{la, a}, cel.IntType, cel.BinaryBinding(listIndexOf(false)))),
		cel.Function("lastIndexOf", cel.MemberOverload("list_a_last_index_of_int", []*cel.Type{la, a}, cel.IntType, cel.BinaryBinding(listIndexOf(true)))),
	}})
}

// regexLib is Kubernetes' regex library: find and findAll.
func regexLib() cel.EnvOption {
	return cel.Lib(&library{opts: []cel.EnvOption{
		cel.Function("find", cel.MemberOverload("string_find_string", []*cel.Type{cel.StringType, cel.StringType}, cel.StringType, cel.BinaryBinding(regexFind))),
		cel.Function("findAll",
			cel.MemberOverload("string_find_all_string", []*cel.Type{cel.StringType, cel.StringType}, cel.ListType(cel.StringType), cel.BinaryBinding(func(s, re ref.Val) ref.Val { return regexFindAll(s, re, types.IntNegOne) })),
			cel.MemberOverload("string_find_all_string_int", []*cel.Type{cel.StringType, cel.StringType, cel.IntType}, cel.ListType(cel.StringType), cel.FunctionBinding(func(args ...ref.Val) ref.Val { return regexFindAll(args[0], args[1], args[2]) }))),
	}})
}

type library struct{ opts []cel.EnvOption }

func (l *library) CompileOptions() []cel.EnvOption     { return l.opts }
func (l *library) ProgramOptions() []cel.ProgramOption { return nil }

func listIsSorted(v ref.Val) ref.Val {
	l, ok := v.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(v)
	}
	it := l.Iterator()
	var prev traits.Comparer
	for it.HasNext() == types.True {
		next := it.Next()
		c, ok := next.(traits.Comparer)
		if !ok {
			return types.MaybeNoSuchOverloadErr(next)
		}
		if prev != nil {
			cmp := prev.Compare(next)
			if types.IsError(cmp) {
				return cmp
			}
			if cmp == types.IntOne {
				return types.False
			}
		}
		prev = c
	}
	return types.True
}

// listExtreme returns min (want IntOne: replace when current > next) or
// max (want IntNegOne).
func listExtreme(want types.Int) func(ref.Val) ref.Val {
	name := "min"
	if want == types.IntNegOne {
		name = "max"
	}
	return func(v ref.Val) ref.Val {
		l, ok := v.(traits.Lister)
		if !ok {
			return types.MaybeNoSuchOverloadErr(v)
		}
		if l.Size() == types.IntZero {
			return types.NewErr("%s called on empty list", name)
		}
		it := l.Iterator()
		best := it.Next()
		for it.HasNext() == types.True {
			next := it.Next()
			c, ok := best.(traits.Comparer)
			if !ok {
				return types.MaybeNoSuchOverloadErr(best)
			}
			cmp := c.Compare(next)
			if types.IsError(cmp) {
				return cmp
			}
			if cmp == want {
				best = next
			}
		}
		return best
	}
}

func listSum(v ref.Val, zero ref.Val) ref.Val {
	l, ok := v.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(v)
	}
	sum := zero
	for it := l.Iterator(); it.HasNext() == types.True; {
		adder, ok := sum.(traits.Adder)
		if !ok {
			return types.MaybeNoSuchOverloadErr(sum)
		}
		sum = adder.Add(it.Next())
		if types.IsError(sum) {
			return sum
		}
	}
	return sum
}

func listIndexOf(last bool) func(ref.Val, ref.Val) ref.Val {
	return func(v, x ref.Val) ref.Val {
		l, ok := v.(traits.Lister)
		if !ok {
			return types.MaybeNoSuchOverloadErr(v)
		}
		n := int64(l.Size().(types.Int))
		for i := int64(0); i < n; i++ {
			idx := i
			if last {
				idx = n - 1 - i
			}
			if l.Get(types.Int(idx)).Equal(x) == types.True {
				return types.Int(idx)
			}
		}
		return types.IntNegOne
	}
}

func regexFind(s, re ref.Val) ref.Val {
	str, ok1 := s.(types.String)
	pat, ok2 := re.(types.String)
	if !ok1 || !ok2 {
		return types.MaybeNoSuchOverloadErr(s)
	}
	r, err := regexp.Compile(string(pat))
	if err != nil {
		return types.WrapErr(err)
	}
	return types.String(r.FindString(string(str)))
}

func regexFindAll(s, re, limit ref.Val) ref.Val {
	str, ok1 := s.(types.String)
	pat, ok2 := re.(types.String)
	n, ok3 := limit.(types.Int)
	if !ok1 || !ok2 || !ok3 {
		return types.MaybeNoSuchOverloadErr(s)
	}
	r, err := regexp.Compile(string(pat))
	if err != nil {
		return types.WrapErr(err)
	}
	return types.NewStringList(types.DefaultTypeAdapter, r.FindAllString(string(str), int(n)))
}
