package validating

import (
	"github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kapi-dev/kapi/internal/admission/policy"
)

// compiled is one policy generation, compiled; it is immutable and shared
// by every request.
type compiled struct {
	uid        string
	generation int64

	failurePolicy   admissionregistrationv1.FailurePolicyType
	vars            []policy.Variable
	matchConditions []namedExpr
	validations     []validation
	audits          []namedExpr
	// err is a configuration error of the whole policy (its environment
	// could not be built); every matching request sees it.
	err error
}

type namedExpr struct {
	name string
	expr *policy.Expr
}

type validation struct {
	spec admissionregistrationv1.Validation
	expr *policy.Expr
	msg  *policy.Expr // nil without messageExpression
}

func compile(p *admissionregistrationv1.ValidatingAdmissionPolicy) *compiled {
	c := &compiled{uid: string(p.UID), generation: p.Generation, failurePolicy: admissionregistrationv1.Fail}
	if p.Spec.FailurePolicy != nil {
		c.failurePolicy = *p.Spec.FailurePolicy
	}
	env, err := policy.Env(policy.EnvOptions{HasParams: p.Spec.ParamKind != nil})
	if err != nil {
		c.err = err
		return c
	}
	for _, v := range p.Spec.Variables {
		c.vars = append(c.vars, policy.Variable{Name: v.Name, Expr: policy.Compile(env, v.Expression)})
	}
	for _, m := range p.Spec.MatchConditions {
		c.matchConditions = append(c.matchConditions, namedExpr{name: m.Name, expr: policy.Compile(env, m.Expression, cel.BoolType)})
	}
	for _, v := range p.Spec.Validations {
		cv := validation{spec: v, expr: policy.Compile(env, v.Expression, cel.BoolType)}
		if v.MessageExpression != "" {
			cv.msg = policy.Compile(env, v.MessageExpression, cel.StringType)
		}
		c.validations = append(c.validations, cv)
	}
	for _, a := range p.Spec.AuditAnnotations {
		c.audits = append(c.audits, namedExpr{name: a.Key, expr: policy.Compile(env, a.ValueExpression, cel.StringType, cel.NullType)})
	}
	return c
}
