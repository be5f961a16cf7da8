package webhook

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/policy"
	kcel "github.com/kapi-dev/kapi/internal/apiextensions/cel"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

// conditionEnv is upstream's environment for matchConditions: the
// Kubernetes CEL base (libraries included), object, oldObject, request,
// namespaceObject (unset for webhooks) and the authorizer variables.
func conditionEnv() (*cel.Env, error) {
	return policy.Env(policy.EnvOptions{NoVariables: true})
}

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
		prg, err := env.Program(ast, kcel.ProgramOptions()...)
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
// returned, to be handled by the failure policy. vars are shared and
// not changed; az (nil without an authorizer) asks about the requester.
func (m *matchConditions) match(ctx context.Context, vars map[string]any, az authorizer.Authorizer, a *admission.Attributes) (bool, error) {
	act := make(map[string]any, len(vars)+2)
	maps.Copy(act, vars)
	if az != nil {
		authz := policy.Authorizer(ctx, az, a.UserInfo)
		act[policy.AuthorizerVar] = authz
		act[policy.RequestResourceVar] = policy.RequestResourceCheck(authz, a.Resource.Group, a.Resource.Version, a.Resource.Resource, a.Subresource, a.Namespace, a.Name)
	}
	var evalErrs []string
	for i, prg := range m.programs {
		out, _, err := prg.ContextEval(ctx, act)
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
