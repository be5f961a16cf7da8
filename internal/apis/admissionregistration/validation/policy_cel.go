package validation

import (
	"strings"

	"github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/admission/policy"
)

// celExpr is one expression to compile when a policy is written, with the
// types it must evaluate to (none: any).
type celExpr struct {
	path *field.Path
	src  string
	want []*cel.Type
}

// compileErrors compiles a policy's expressions in the admission CEL
// environment, as upstream refuses a policy whose expressions do not
// compile or evaluate to the wrong type.
func compileErrors(env *cel.Env, exprs []celExpr) field.ErrorList {
	var errs field.ErrorList
	for _, x := range exprs {
		if strings.TrimSpace(x.src) == "" {
			continue
		}
		if c := policy.Compile(env, x.src, x.want...); c.Err != nil {
			errs = append(errs, field.Invalid(x.path, x.src, c.Err.Error()))
		}
	}
	return errs
}

func commonExprs(specPath *field.Path, conds []admissionregistrationv1.MatchCondition, vars []admissionregistrationv1.Variable) []celExpr {
	var out []celExpr
	for i, v := range vars {
		out = append(out, celExpr{path: specPath.Child("variables").Index(i).Child("expression"), src: v.Expression})
	}
	for i, c := range conds {
		out = append(out, celExpr{path: specPath.Child("matchConditions").Index(i).Child("expression"), src: c.Expression, want: []*cel.Type{cel.BoolType}})
	}
	return out
}

func validatingPolicyCompileErrors(spec *admissionregistrationv1.ValidatingAdmissionPolicySpec, specPath *field.Path) field.ErrorList {
	env, err := policy.Env(policy.EnvOptions{HasParams: spec.ParamKind != nil})
	if err != nil {
		return field.ErrorList{field.InternalError(specPath, err)}
	}
	exprs := commonExprs(specPath, spec.MatchConditions, spec.Variables)
	for i, v := range spec.Validations {
		p := specPath.Child("validations").Index(i)
		exprs = append(exprs, celExpr{path: p.Child("expression"), src: v.Expression, want: []*cel.Type{cel.BoolType}})
		if v.MessageExpression != "" {
			exprs = append(exprs, celExpr{path: p.Child("messageExpression"), src: v.MessageExpression, want: []*cel.Type{cel.StringType}})
		}
	}
	for i, a := range spec.AuditAnnotations {
		exprs = append(exprs, celExpr{path: specPath.Child("auditAnnotations").Index(i).Child("valueExpression"), src: a.ValueExpression, want: []*cel.Type{cel.StringType, cel.NullType}})
	}
	return compileErrors(env, exprs)
}

func mutatingPolicyCompileErrors(spec *admissionregistrationv1.MutatingAdmissionPolicySpec, specPath *field.Path) field.ErrorList {
	env, err := policy.MutationEnv(policy.EnvOptions{HasParams: spec.ParamKind != nil})
	if err != nil {
		return field.ErrorList{field.InternalError(specPath, err)}
	}
	exprs := commonExprs(specPath, spec.MatchConditions, spec.Variables)
	for i, m := range spec.Mutations {
		p := specPath.Child("mutations").Index(i)
		switch {
		case m.PatchType == admissionregistrationv1.PatchTypeApplyConfiguration && m.ApplyConfiguration != nil:
			exprs = append(exprs, celExpr{path: p.Child("applyConfiguration", "expression"), src: m.ApplyConfiguration.Expression, want: []*cel.Type{policy.ApplyConfigurationType}})
		case m.PatchType == admissionregistrationv1.PatchTypeJSONPatch && m.JSONPatch != nil:
			exprs = append(exprs, celExpr{path: p.Child("jsonPatch", "expression"), src: m.JSONPatch.Expression, want: []*cel.Type{policy.JSONPatchListType}})
		}
	}
	return compileErrors(env, exprs)
}
