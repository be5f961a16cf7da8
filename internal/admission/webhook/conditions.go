package webhook

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// celCostLimit bounds one evaluation, as upstream's per-call limit.
const celCostLimit = 1000000

// conditionEnv declares what matchConditions see: object, oldObject and
// request, each as upstream's JSON shape. The authorizer variable is not
// offered yet: a condition using it fails to compile and the webhook
// fails under its failure policy rather than matching wrongly.
var conditionEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("object", cel.DynType),
		cel.Variable("oldObject", cel.DynType),
		cel.Variable("request", cel.DynType),
		cel.HomogeneousAggregateLiterals(),
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		ext.Lists(ext.ListsVersion(3)),
	)
})

// matchConditions are a webhook's compiled matchConditions.
type matchConditions struct {
	names    []string
	programs []cel.Program
}

func compileMatchConditions(conds []admissionregistrationv1.MatchCondition) (*matchConditions, error) {
	env, err := conditionEnv()
	if err != nil {
		return nil, err
	}
	m := &matchConditions{}
	var errs []string
	for _, c := range conds {
		ast, iss := env.Compile(c.Expression)
		if iss.Err() != nil {
			errs = append(errs, fmt.Sprintf("matchCondition %q: compilation failed: %v", c.Name, iss.Err()))
			continue
		}
		if ast.OutputType() != cel.BoolType && ast.OutputType() != cel.DynType {
			errs = append(errs, fmt.Sprintf("matchCondition %q: must evaluate to bool", c.Name))
			continue
		}
		prg, err := env.Program(ast, cel.CostLimit(celCostLimit), cel.EvalOptions(cel.OptOptimize))
		if err != nil {
			errs = append(errs, fmt.Sprintf("matchCondition %q: %v", c.Name, err))
			continue
		}
		m.names = append(m.names, c.Name)
		m.programs = append(m.programs, prg)
	}
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "; "))
	}
	return m, nil
}

// match is true when every condition is true. Any false condition means
// no match, even if another failed; otherwise an evaluation error is
// returned, to be handled by the failure policy.
func (m *matchConditions) match(vars map[string]any) (bool, error) {
	var evalErrs []string
	for i, prg := range m.programs {
		out, _, err := prg.Eval(vars)
		if err != nil {
			evalErrs = append(evalErrs, fmt.Sprintf("matchCondition %q: %v", m.names[i], err))
			continue
		}
		b, ok := out.Value().(bool)
		if !ok {
			evalErrs = append(evalErrs, fmt.Sprintf("matchCondition %q: expected a bool, got %v", m.names[i], out.Type()))
			continue
		}
		if !b {
			return false, nil
		}
	}
	if len(evalErrs) > 0 {
		return false, errors.New(strings.Join(evalErrs, "; "))
	}
	return true, nil
}
