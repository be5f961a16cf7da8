package validating

import (
	"fmt"
	"sort"
	"strings"

	"github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/admission/policy"
	kcel "github.com/kapi-dev/kapi/internal/apiextensions/cel"
	apischema "github.com/kapi-dev/kapi/internal/apiextensions/schema"
)

// maxTypesToCheck bounds how many kinds one policy is checked against, as
// upstream.
const maxTypesToCheck = 10

// TypeChecker checks a policy's expressions against the schemas of the
// kinds its matchConstraints name, for the warnings the status controller
// writes into status.typeChecking.
type TypeChecker struct {
	// Schema returns a kind's schema; nil when it is not known (the kind
	// is then not checked).
	Schema func(schema.GroupVersionKind) *apischema.Structural
	// KindsFor maps a resource to its kinds.
	KindsFor func(schema.GroupVersionResource) ([]schema.GroupVersionKind, error)
}

type typedEnv struct {
	gvk schema.GroupVersionKind
	env *cel.Env
}

// Check returns the policy's expression warnings: for each validation's
// expression and messageExpression, the problems the typed compile finds
// per kind ("<gvk>: <problem>").
func (c *TypeChecker) Check(p *admissionregistrationv1.ValidatingAdmissionPolicy) []admissionregistrationv1.ExpressionWarning {
	envs := c.envs(p)
	if len(envs) == 0 {
		return nil
	}
	var warnings []admissionregistrationv1.ExpressionWarning
	path := field.NewPath("spec", "validations")
	for i, v := range p.Spec.Validations {
		if w := check(envs, v.Expression); w != "" {
			warnings = append(warnings, admissionregistrationv1.ExpressionWarning{FieldRef: path.Index(i).Child("expression").String(), Warning: w})
		}
		if v.MessageExpression == "" {
			continue
		}
		if w := check(envs, v.MessageExpression); w != "" {
			warnings = append(warnings, admissionregistrationv1.ExpressionWarning{FieldRef: path.Index(i).Child("messageExpression").String(), Warning: w})
		}
	}
	return warnings
}

func check(envs []typedEnv, expr string) string {
	var msgs []string
	for _, e := range envs {
		x := policy.Compile(e.env, expr)
		if x.Err != nil {
			msgs = append(msgs, fmt.Sprintf("%v: %v\n", e.gvk, x.Err))
		}
	}
	return strings.Join(msgs, "\n")
}

func (c *TypeChecker) envs(p *admissionregistrationv1.ValidatingAdmissionPolicy) []typedEnv {
	base, err := kcel.BaseEnv()
	if err != nil {
		return nil
	}
	opts := policy.EnvOptions{HasParams: p.Spec.ParamKind != nil}
	var paramsEnv *cel.Env
	var paramsType *cel.Type
	if pk := p.Spec.ParamKind; pk != nil {
		if gv, err := schema.ParseGroupVersion(pk.APIVersion); err == nil {
			if s := c.Schema(gv.WithKind(pk.Kind)); s != nil {
				if env, t, ok, err := kcel.TypedEnv(base, s, "Params"+pk.Kind); err == nil && ok {
					paramsEnv, paramsType = env, t
				}
			}
		}
	}
	var out []typedEnv
	for _, gvk := range c.typesToCheck(p) {
		s := c.Schema(gvk)
		if s == nil {
			continue
		}
		env := base
		if paramsEnv != nil {
			env = paramsEnv
		}
		env, t, ok, err := kcel.TypedEnv(env, s, gvk.Kind)
		if err != nil || !ok {
			continue
		}
		env, err = policy.TypedEnv(env, opts, t, paramsType)
		if err != nil {
			continue
		}
		out = append(out, typedEnv{gvk: gvk, env: env})
	}
	return out
}

// typesToCheck are the kinds of the resources matchConstraints names
// without wildcards, sorted, at most maxTypesToCheck.
func (c *TypeChecker) typesToCheck(p *admissionregistrationv1.ValidatingAdmissionPolicy) []schema.GroupVersionKind {
	mc := p.Spec.MatchConstraints
	if mc == nil || c.KindsFor == nil {
		return nil
	}
	seen := map[schema.GroupVersionKind]bool{}
	var out []schema.GroupVersionKind
	for _, r := range mc.ResourceRules {
		groups, versions, resources := noWildcards(r.APIGroups), noWildcards(r.APIVersions), noWildcards(r.Resources)
		for _, g := range groups {
			for _, v := range versions {
				for _, res := range resources {
					if strings.Contains(res, "/") {
						continue
					}
					kinds, err := c.KindsFor(schema.GroupVersionResource{Group: g, Version: v, Resource: res})
					if err != nil {
						continue
					}
					for _, k := range kinds {
						if !k.Empty() && !seen[k] {
							seen[k] = true
							out = append(out, k)
							if len(out) == maxTypesToCheck {
								return sortGVKs(out)
							}
						}
					}
				}
			}
		}
	}
	return sortGVKs(out)
}

func noWildcards(l []string) []string {
	for _, s := range l {
		if strings.Contains(s, "*") {
			return nil
		}
	}
	out := append([]string(nil), l...)
	sort.Strings(out)
	return out
}

func sortGVKs(l []schema.GroupVersionKind) []schema.GroupVersionKind {
	sort.Slice(l, func(i, j int) bool { return l[i].String() < l[j].String() })
	return l
}
