package policy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"

	kcel "github.com/kapi-dev/kapi/internal/apiextensions/cel"
)

// ErrOutOfBudget is returned once a request's evaluations have spent the
// budget; nothing more is evaluated for it.
var ErrOutOfBudget = errors.New("validation failed due to running out of cost budget, no further validation rules will be run")

// Variable is one named, compiled entry of spec.variables.
type Variable struct {
	Name string
	Expr *Expr
}

// Input are the values of one evaluation: Object and OldObject as
// NativeObject gives them (null when absent), Params nil when the policy
// has none. Request and Namespace are computed on first use (they should
// remember their result: an Input is shared by a request's evaluations).
type Input struct {
	Object, OldObject ref.Val
	Params            map[string]any
	HasParams         bool
	Request           func() ref.Val
	Namespace         func() ref.Val
	// Authorizer is the authorizer variable (nil: not available);
	// RequestResource is authorizer.requestResource.
	Authorizer, RequestResource func() ref.Val
	// Lazy, when set, supplies request, namespaceObject, authorizer and
	// authorizer.requestResource instead of the functions above (one
	// object per request instead of a closure per variable).
	Lazy LazyVars
}

// LazyVars computes the variables of a request that are costly to build,
// when an expression first reads them; ok false leaves a variable
// undefined (authorizer without an authorizer).
type LazyVars interface {
	RequestVal() ref.Val
	NamespaceVal() ref.Val
	AuthorizerVal() (ref.Val, bool)
	RequestResourceVal() (ref.Val, bool)
}

// Evaluation evaluates expressions for one request and one parameter
// object, charging them all to one budget. Variables are evaluated on
// first use and remembered. It is not safe for concurrent use; Close
// releases it.
type Evaluation struct {
	in     Input
	vals   [6]ref.Val
	vars   lazyVars
	budget int64
	ctx    context.Context

	// frames are the execution frames of the expressions running, by
	// nesting depth (a variable evaluated while an expression runs needs
	// its own frame: a frame holds the cost tracker of its evaluation).
	// They are kept for the next expression: setting up a frame derives a
	// cancellable context, which costs more than a small expression.
	frames   []*interpreter.ExecutionFrame
	frameCtx context.Context
	depth    int
}

// NewEvaluation prepares the activation for in with budget to spend.
func NewEvaluation(in *Input, vars []Variable, budget int64) *Evaluation {
	e := &Evaluation{budget: budget, in: *in}
	e.vals[0], e.vals[1] = orNull(in.Object), orNull(in.OldObject)
	if in.HasParams {
		e.vals[4] = mapOrNull(in.Params)
	}
	e.vars = lazyVars{e: e, vars: vars}
	if len(vars) > 0 {
		e.vars.results = make([]ref.Val, len(vars))
	}
	e.vals[5] = &e.vars
	return e
}

// Close releases the execution frames; the Evaluation may still be used
// (it sets up new ones).
func (e *Evaluation) Close() {
	for _, f := range e.frames {
		f.Close()
	}
	e.frames, e.frameCtx = e.frames[:0], nil
}

// run evaluates x in a frame of this evaluation bound to ctx. Programs
// here have no global variables, so the frame's activation is e itself,
// as cel-go's ContextEval would set it up.
func (e *Evaluation) run(ctx context.Context, x *Expr) (ref.Val, *cel.EvalDetails, error) {
	if e.depth == 0 && ctx != e.frameCtx {
		e.Close()
		e.frameCtx = ctx
	}
	if ctx != e.frameCtx {
		return x.prog.ContextEval(ctx, e)
	}
	if e.depth == len(e.frames) {
		f, err := interpreter.NewExecutionFrame(e)
		if err != nil {
			return nil, nil, err
		}
		if err := f.SetContext(ctx, kcel.CheckFrequency); err != nil {
			f.Close()
			return nil, nil, err
		}
		e.frames = append(e.frames, f)
	}
	f := e.frames[e.depth]
	e.depth++
	defer func() { e.depth-- }()
	val, details, err := x.prog.Eval(f)
	if err != nil && errors.Is(err, interpreter.InterruptError{}) {
		err = fmt.Errorf("%w: %w", err, context.Cause(ctx))
	}
	return val, details, err
}

func orNull(v ref.Val) ref.Val {
	if v == nil {
		return types.NullValue
	}
	return v
}

func mapOrNull(m map[string]any) ref.Val {
	if m == nil {
		return types.NullValue
	}
	return types.NewStringInterfaceMap(types.DefaultTypeAdapter, m)
}

// ResolveName implements interpreter.Activation.
func (e *Evaluation) ResolveName(name string) (any, bool) {
	switch name {
	case ObjectVar:
		return e.vals[0], true
	case OldObjectVar:
		return e.vals[1], true
	case RequestVar:
		if e.vals[2] == nil {
			e.vals[2] = types.NullValue
			switch {
			case e.in.Lazy != nil:
				e.vals[2] = orNull(e.in.Lazy.RequestVal())
			case e.in.Request != nil:
				e.vals[2] = e.in.Request()
			}
		}
		return e.vals[2], true
	case NamespaceVar:
		if e.vals[3] == nil {
			e.vals[3] = types.NullValue
			switch {
			case e.in.Lazy != nil:
				e.vals[3] = orNull(e.in.Lazy.NamespaceVal())
			case e.in.Namespace != nil:
				e.vals[3] = orNull(e.in.Namespace())
			}
		}
		return e.vals[3], true
	case ParamsVar:
		return e.vals[4], e.vals[4] != nil
	case VariablesVar:
		return e.vals[5], true
	case AuthorizerVar:
		if e.in.Lazy != nil {
			return e.in.Lazy.AuthorizerVal()
		}
		if e.in.Authorizer == nil {
			return nil, false
		}
		return e.in.Authorizer(), true
	case RequestResourceVar:
		if e.in.Lazy != nil {
			return e.in.Lazy.RequestResourceVal()
		}
		if e.in.RequestResource == nil {
			return nil, false
		}
		return e.in.RequestResource(), true
	}
	return nil, false
}

// Parent implements interpreter.Activation.
func (e *Evaluation) Parent() cel.Activation { return nil }

// Remaining is the budget left.
func (e *Evaluation) Remaining() int64 { return e.budget }

// Eval evaluates x. The error is the expression's failure in upstream's
// words; ErrOutOfBudget (wrapped) once the budget is spent.
func (e *Evaluation) Eval(ctx context.Context, x *Expr) (ref.Val, error) {
	if e.budget < 0 {
		return nil, ErrOutOfBudget
	}
	if x.Err != nil {
		return nil, fmt.Errorf("compilation error: %w", x.Err)
	}
	e.ctx = ctx
	val, details, err := e.run(ctx, x)
	// variables evaluated during this call charged their own cost
	if e.budget < 0 {
		return nil, ErrOutOfBudget
	}
	if details == nil || details.ActualCost() == nil {
		e.budget = -1
		return nil, fmt.Errorf("runtime cost could not be calculated for expression: %v, no further expression will be run", x.Source)
	}
	cost := *details.ActualCost()
	if cost > math.MaxInt64 || int64(cost) > e.budget {
		e.budget = -1
		return nil, ErrOutOfBudget
	}
	e.budget -= int64(cost)
	if err != nil {
		return nil, fmt.Errorf("expression '%v' resulted in error: %v", x.Source, err)
	}
	return val, nil
}

// lazyVars is the variables map: each entry is evaluated the first time an
// expression reads it, within the same budget.
type lazyVars struct {
	e       *Evaluation
	vars    []Variable
	results []ref.Val
	busy    []bool
}

var lazyVarsType = types.NewMapType(types.StringType, types.DynType)

func (v *lazyVars) index(key ref.Val) int {
	s, ok := key.(types.String)
	if !ok {
		return -1
	}
	for i := range v.vars {
		if v.vars[i].Name == string(s) {
			return i
		}
	}
	return -1
}

func (v *lazyVars) value(i int) ref.Val {
	if r := v.results[i]; r != nil {
		return r
	}
	if v.busy == nil {
		v.busy = make([]bool, len(v.vars))
	}
	if v.busy[i] {
		return types.NewErr("composited variable %q refers to itself", v.vars[i].Name)
	}
	v.busy[i] = true
	defer func() { v.busy[i] = false }()
	x := v.vars[i].Expr
	var r ref.Val
	if x.Err != nil {
		r = types.NewErr("composited variable %q fails to compile: %v", v.vars[i].Name, x.Err)
	} else {
		val, err := v.e.Eval(v.e.ctx, x)
		if err != nil {
			r = types.WrapErr(err)
		} else {
			r = val
		}
	}
	v.results[i] = r
	return r
}

func (v *lazyVars) Get(key ref.Val) ref.Val {
	r, ok := v.Find(key)
	if !ok {
		return types.NewErr("no such key: %v", key)
	}
	return r
}

func (v *lazyVars) Find(key ref.Val) (ref.Val, bool) {
	i := v.index(key)
	if i < 0 {
		return nil, false
	}
	return v.value(i), true
}

func (v *lazyVars) Contains(key ref.Val) ref.Val { return types.Bool(v.index(key) >= 0) }
func (v *lazyVars) Size() ref.Val                { return types.Int(len(v.vars)) }
func (v *lazyVars) Iterator() traits.Iterator {
	keys := make([]ref.Val, len(v.vars))
	for i := range v.vars {
		keys[i] = types.String(v.vars[i].Name)
	}
	return types.NewRefValList(types.DefaultTypeAdapter, keys).(traits.Lister).Iterator()
}
func (v *lazyVars) ConvertToNative(reflect.Type) (any, error) {
	return nil, errors.New("variables cannot be converted to a native value")
}
func (v *lazyVars) ConvertToType(t ref.Type) ref.Val {
	if t == types.TypeType {
		return lazyVarsType
	}
	return types.NewErr("type conversion error from map to %v", t)
}
func (v *lazyVars) Equal(other ref.Val) ref.Val { return types.Bool(other == ref.Val(v)) }
func (v *lazyVars) Type() ref.Type              { return lazyVarsType }
func (v *lazyVars) Value() any                  { return v }
