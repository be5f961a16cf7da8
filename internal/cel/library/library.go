package library

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// All is every library of this package, as an environment option.
func All() cel.EnvOption {
	return cel.Lib(&lib{opts: [][]cel.EnvOption{
		quantityDecls(), ipDecls(), cidrDecls(), urlDecls(), formatDecls(), semverDecls(), includesDecls(),
	}})
}

type lib struct{ opts [][]cel.EnvOption }

func (l *lib) CompileOptions() []cel.EnvOption {
	var out []cel.EnvOption
	for _, o := range l.opts {
		out = append(out, o...)
	}
	return out
}

func (*lib) ProgramOptions() []cel.ProgramOption { return nil }

// includesDecls is the lists library's version 1 addition (1.37):
// <dyn>.includes(<dyn>) is true when the target list holds the argument,
// or the target equals it.
func includesDecls() []cel.EnvOption {
	return []cel.EnvOption{cel.Function("includes",
		cel.MemberOverload("list_includes_dyn_dyn", []*cel.Type{cel.DynType, cel.DynType}, cel.BoolType, cel.BinaryBinding(includes)))}
}

func includes(target, arg ref.Val) ref.Val {
	if l, ok := target.(traits.Lister); ok {
		for it := l.Iterator(); it.HasNext() == types.True; {
			if it.Next().Equal(arg) == types.True {
				return types.True
			}
		}
		return types.False
	}
	return types.Bool(target.Equal(arg) == types.True)
}
