package policy

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"

	kcel "github.com/kapi-dev/kapi/internal/apiextensions/cel"
)

// The names of the variables admission expressions see.
const (
	ObjectVar    = "object"
	OldObjectVar = "oldObject"
	RequestVar   = "request"
	ParamsVar    = "params"
	NamespaceVar = "namespaceObject"
	VariablesVar = "variables"
)

// Upstream's runtime budgets: each binding's evaluation (all of a policy's
// expressions for one request) and the matchConditions of one policy.
const (
	RuntimeCELCostBudget                = 10_000_000
	RuntimeCELCostBudgetMatchConditions = 2_500_000
	// MaxEvaluatedMessageExpressionSizeBytes bounds a messageExpression's
	// result; longer messages are dropped.
	MaxEvaluatedMessageExpressionSizeBytes = 5 * 1024
)

// EnvOptions say which optional variables an expression may use.
type EnvOptions struct {
	// HasParams declares params (the policy has a paramKind).
	HasParams bool
	// NoVariables leaves variables undeclared (webhook matchConditions).
	NoVariables bool
}

var envs sync.Map // EnvOptions → *cel.Env

// Env is the admission environment for opts: the base Kubernetes CEL
// environment plus object, oldObject, request, namespaceObject,
// variables and, with HasParams, params. object, oldObject, params and
// variables are dynamic at runtime, as upstream declares them; request
// and namespaceObject are maps here (upstream types them, so a typo in
// a request field compiles here and fails at runtime).
func Env(opts EnvOptions) (*cel.Env, error) {
	if e, ok := envs.Load(opts); ok {
		return e.(*cel.Env), nil
	}
	base, err := kcel.BaseEnv()
	if err != nil {
		return nil, err
	}
	vars := []cel.EnvOption{
		cel.Variable(ObjectVar, cel.DynType),
		cel.Variable(OldObjectVar, cel.DynType),
		cel.Variable(RequestVar, cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable(NamespaceVar, cel.DynType),
		cel.Variable(AuthorizerVar, AuthorizerType),
		cel.Variable(RequestResourceVar, ResourceCheckType),
		authzLib(),
	}
	if !opts.NoVariables {
		vars = append(vars, cel.Variable(VariablesVar, cel.MapType(cel.StringType, cel.DynType)))
	}
	if opts.HasParams {
		vars = append(vars, cel.Variable(ParamsVar, cel.DynType))
	}
	e, err := base.Extend(vars...)
	if err != nil {
		return nil, fmt.Errorf("environment misconfigured: %w", err)
	}
	envs.Store(opts, e)
	return e, nil
}

// Expr is one compiled expression, shared by every request.
type Expr struct {
	Source string
	prog   cel.Program
	// Err is the compile error in upstream's words ("compilation failed:
	// ...", "must evaluate to bool but got int"); prog is nil then.
	Err error
}

// Compile compiles src in env; its result must be one of want (none: any
// type). A failure is kept in the Expr, as upstream reports compile errors
// when the expression is evaluated.
func Compile(env *cel.Env, src string, want ...*cel.Type) *Expr {
	x := &Expr{Source: src}
	ast, iss := env.Compile(src)
	if iss != nil && iss.Err() != nil {
		x.Err = fmt.Errorf("compilation failed: %s", iss.String())
		return x
	}
	if len(want) > 0 {
		found := false
		for _, t := range want {
			if ast.OutputType().IsExactType(t) {
				found = true
				break
			}
		}
		if !found {
			if len(want) == 1 {
				x.Err = fmt.Errorf("must evaluate to %v but got %v", want[0], ast.OutputType())
			} else {
				x.Err = fmt.Errorf("must evaluate to one of %v but got %v", want, ast.OutputType())
			}
			return x
		}
	}
	prog, err := env.Program(ast, programOptions()...)
	if err != nil {
		x.Err = fmt.Errorf("program instantiation failed: %v", err)
		return x
	}
	x.prog = prog
	return x
}

// TypedEnv is Env with object and oldObject of objectType and params of
// paramsType (dynamic when nil), built on env, which declares those types
// (see apiextensions/cel.TypedEnv): for type checking.
func TypedEnv(env *cel.Env, opts EnvOptions, objectType, paramsType *cel.Type) (*cel.Env, error) {
	if objectType == nil {
		objectType = cel.DynType
	}
	if paramsType == nil {
		paramsType = cel.DynType
	}
	vars := []cel.EnvOption{
		cel.Variable(ObjectVar, objectType),
		cel.Variable(OldObjectVar, objectType),
		cel.Variable(RequestVar, cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable(NamespaceVar, cel.DynType),
		cel.Variable(VariablesVar, cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable(AuthorizerVar, AuthorizerType),
		cel.Variable(RequestResourceVar, ResourceCheckType),
		authzLib(),
	}
	if opts.HasParams {
		vars = append(vars, cel.Variable(ParamsVar, paramsType))
	}
	return env.Extend(vars...)
}
