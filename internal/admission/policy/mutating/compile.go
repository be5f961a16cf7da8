package mutating

import (
	"github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kapi-dev/kapi/internal/admission/policy"
)

// compiled is one policy generation, compiled; immutable and shared.
type compiled struct {
	generation      int64
	failurePolicy   admissionregistrationv1.FailurePolicyType
	reinvocation    admissionregistrationv1.ReinvocationPolicyType
	vars            []policy.Variable
	matchConditions []*policy.Expr
	mutations       []mutation
	err             error
}

type mutation struct {
	patchType admissionregistrationv1.PatchType
	expr      *policy.Expr
}

func compile(p *admissionregistrationv1.MutatingAdmissionPolicy) *compiled {
	c := &compiled{generation: p.Generation, failurePolicy: admissionregistrationv1.Fail, reinvocation: p.Spec.ReinvocationPolicy}
	if p.Spec.FailurePolicy != nil {
		c.failurePolicy = *p.Spec.FailurePolicy
	}
	env, err := policy.MutationEnv(policy.EnvOptions{HasParams: p.Spec.ParamKind != nil})
	if err != nil {
		c.err = err
		return c
	}
	for _, v := range p.Spec.Variables {
		c.vars = append(c.vars, policy.Variable{Name: v.Name, Expr: policy.Compile(env, v.Expression)})
	}
	for _, m := range p.Spec.MatchConditions {
		c.matchConditions = append(c.matchConditions, policy.Compile(env, m.Expression, cel.BoolType))
	}
	for _, m := range p.Spec.Mutations {
		mu := mutation{patchType: m.PatchType}
		switch {
		case m.PatchType == admissionregistrationv1.PatchTypeApplyConfiguration && m.ApplyConfiguration != nil:
			mu.expr = policy.Compile(env, m.ApplyConfiguration.Expression, policy.ApplyConfigurationType)
		case m.PatchType == admissionregistrationv1.PatchTypeJSONPatch && m.JSONPatch != nil:
			mu.expr = policy.Compile(env, m.JSONPatch.Expression, policy.JSONPatchListType)
		}
		c.mutations = append(c.mutations, mu)
	}
	return c
}
