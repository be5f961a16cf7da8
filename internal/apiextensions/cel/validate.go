package cel

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/util/validation/field"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Validate runs the rules against obj (the whole custom resource, as
// unstructured content) with old the stored object (nil on create). Errors
// carry upstream's paths and messages. A nil Validator has no rules.
func (v *Validator) Validate(ctx context.Context, obj, old map[string]any) field.ErrorList {
	if v == nil || v.root == nil || obj == nil {
		return nil
	}
	var oldAny any
	if old != nil {
		oldAny = old
	}
	budget := int64(RuntimeCELCostBudget)
	return v.root.validate(ctx, nil, obj, oldAny, &budget)
}

// validate runs this node's rules then its descendants'. A negative budget
// means evaluation stopped; no further rules run.
func (n *nodeValidator) validate(ctx context.Context, path *field.Path, obj, old any, budget *int64) field.ErrorList {
	if n == nil || obj == nil {
		return nil
	}
	errs := n.validateRules(ctx, path, obj, old, budget)
	if *budget < 0 {
		return errs
	}
	switch x := obj.(type) {
	case map[string]any:
		oldMap, _ := old.(map[string]any)
		if !mapIsCorrelatable(n.mapType) {
			oldMap = nil
		}
		for _, p := range n.props {
			val, ok := x[p.name]
			if !ok {
				continue
			}
			errs = append(errs, p.v.validate(ctx, path.Child(p.name), val, lookupOld(oldMap, p.name), budget)...)
			if *budget < 0 {
				return errs
			}
		}
		if n.additional != nil {
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				errs = append(errs, n.additional.validate(ctx, path.Key(k), x[k], lookupOld(oldMap, k), budget)...)
				if *budget < 0 {
					return errs
				}
			}
		}
	case []any:
		if n.items == nil {
			return errs
		}
		oldItems := correlateListMap(n.listType, n.listMapKeys, old)
		for i, item := range x {
			var oldItem any
			if oldItems != nil {
				oldItem = oldItems[listMapKey(n.listMapKeys, item)]
			}
			errs = append(errs, n.items.validate(ctx, path.Index(i), item, oldItem, budget)...)
			if *budget < 0 {
				return errs
			}
		}
	}
	return errs
}

func lookupOld(m map[string]any, k string) any {
	if m == nil {
		return nil
	}
	return m[k]
}

// correlateListMap indexes the old elements of a list-type=map list by
// their keys; other lists are not correlated (oldSelf is unavailable).
func correlateListMap(listType string, keys []string, old any) map[string]any {
	l, ok := old.([]any)
	if listType != "map" || !ok || len(l) == 0 {
		return nil
	}
	out := make(map[string]any, len(l))
	for _, x := range l {
		k := listMapKey(keys, x)
		if _, dup := out[k]; !dup {
			out[k] = x
		}
	}
	return out
}

func listMapKey(keys []string, x any) string {
	m, _ := x.(map[string]any)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%T:%v\x00", m[k], m[k])
	}
	return b.String()
}

// activation resolves self and oldSelf for one node.
type activation struct {
	self, oldSelf ref.Val
	hasOldSelf    bool
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case selfVar:
		return a.self, true
	case oldSelfVar:
		return a.oldSelf, a.hasOldSelf
	}
	return nil, false
}

func (a *activation) Parent() cel.Activation { return nil }

func (n *nodeValidator) validateRules(ctx context.Context, path *field.Path, obj, old any, budget *int64) field.ErrorList {
	var errs field.ErrorList
	if n.initErr != "" {
		return field.ErrorList{field.Invalid(path, n.schemaType, "rule compiler initialization error: "+n.initErr)}
	}
	if len(n.rules) == 0 {
		return nil
	}
	if *budget <= 0 {
		*budget = -1
		return field.ErrorList{field.Invalid(path, n.schemaType, "validation failed due to running out of cost budget, no further validation rules will be run")}
	}
	self := toVal(obj, n.decl)
	act := &activation{self: self}
	optAct := &activation{self: self, hasOldSelf: true, oldSelf: types.OptionalNone}
	if old != nil {
		oldVal := toVal(old, n.decl)
		act.oldSelf, act.hasOldSelf = oldVal, true
		optAct.oldSelf = types.OptionalOf(oldVal)
	}
	for i := range n.rules {
		r := &n.rules[i]
		if r.errDetail != "" {
			errs = append(errs, field.Invalid(path, n.schemaType, "rule compile error: "+r.errDetail))
			continue
		}
		if r.prog == nil {
			continue
		}
		// Transition rules run only where there is an old value, unless
		// oldSelf is optional.
		if r.usesOldSelf && old == nil && !r.optional {
			continue
		}
		a := act
		if r.optional {
			a = optAct
		}
		result, details, err := r.prog.ContextEval(ctx, a)
		if details == nil || details.ActualCost() == nil {
			*budget = -1
			return append(errs, field.Invalid(path, n.schemaType, fmt.Sprintf("runtime cost could not be calculated for validation rule: %v, no further validation rules will be run", ruleErrorString(r.rule))))
		}
		cost := *details.ActualCost()
		if cost > math.MaxInt64 || int64(cost) > *budget {
			*budget = -1
			return append(errs, field.Invalid(path, n.schemaType, "validation failed due to running out of cost budget, no further validation rules will be run"))
		}
		*budget -= int64(cost)
		if err != nil {
			msg := err.Error()
			switch {
			case strings.HasPrefix(msg, "no such overload"):
				errs = append(errs, field.Invalid(path, n.schemaType, fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", err, ruleErrorString(r.rule))))
			case strings.HasPrefix(msg, "operation cancelled: actual cost limit exceeded"):
				*budget = -1
				return append(errs, field.Invalid(path, n.schemaType, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", err, ruleErrorString(r.rule))))
			default:
				errs = append(errs, field.Invalid(path, n.schemaType, fmt.Sprintf("%v evaluating rule: %v", err, ruleErrorString(r.rule))))
			}
			continue
		}
		if result == types.True {
			continue
		}
		errPath := path
		if r.fieldPathOK {
			errPath = path.Child(r.fieldPath)
		}
		detail, ok := "", false
		if r.msgProg != nil {
			msg, msgErr, stop := evalMessage(ctx, r, act, budget)
			switch {
			case stop:
				return append(errs, field.Invalid(errPath, n.schemaType, msgErr))
			case msgErr == "":
				detail, ok = msg, true
			}
		}
		if !ok {
			detail = ruleMessageOrDefault(r.rule)
		}
		var value any = obj
		if n.schemaType == "object" || n.schemaType == "array" {
			value = field.OmitValueType{}
		}
		errs = append(errs, errorForReason(errPath, value, detail, r.rule.Reason))
	}
	return errs
}

// evalMessage evaluates a messageExpression. A non-empty errMsg without
// stop means fall back to the static message; stop means the budget is
// spent and errMsg is the error to report.
func evalMessage(ctx context.Context, r *compiledRule, a *activation, budget *int64) (msg, errMsg string, stop bool) {
	result, details, err := r.msgProg.ContextEval(ctx, a)
	if details == nil || details.ActualCost() == nil {
		*budget = -1
		return "", fmt.Sprintf("runtime cost could not be calculated for messageExpression: %q", r.rule.MessageExpression), true
	}
	cost := *details.ActualCost()
	if cost > math.MaxInt64 || int64(cost) > *budget {
		*budget = -1
		return "", "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run", true
	}
	if err != nil {
		if strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded") {
			*budget = -1
			return "", fmt.Sprintf("no further validation rules will be run due to call cost exceeds limit for messageExpression: %q", r.rule.MessageExpression), true
		}
		*budget -= int64(cost)
		return "", "messageExpression evaluation failed due to: " + err.Error(), false
	}
	*budget -= int64(cost)
	s, ok := result.Value().(string)
	if !ok {
		return "", "messageExpression failed to convert to string", false
	}
	s = strings.TrimSpace(s)
	switch {
	case len(s) > maxEvaluatedMessageSizeBytes:
		return "", fmt.Sprintf("messageExpression beyond allowable length of %d", maxEvaluatedMessageSizeBytes), false
	case strings.Contains(s, "\n"):
		return "", "messageExpression should not contain line breaks", false
	case s == "":
		return "", "messageExpression should evaluate to a non-empty string", false
	}
	return s, "", false
}

func errorForReason(path *field.Path, value any, detail string, reason *apiextv1.FieldValueErrorReason) *field.Error {
	if reason == nil {
		return field.Invalid(path, value, detail)
	}
	switch *reason {
	case "FieldValueForbidden":
		return field.Forbidden(path, detail)
	case "FieldValueRequired":
		return field.Required(path, detail)
	case "FieldValueDuplicate":
		return field.Duplicate(path, value)
	}
	return field.Invalid(path, value, detail)
}

func ruleMessageOrDefault(rule apiextv1.ValidationRule) string {
	if rule.Message == "" {
		return "failed rule: " + ruleErrorString(rule)
	}
	return strings.TrimSpace(rule.Message)
}

func ruleErrorString(rule apiextv1.ValidationRule) string {
	if rule.Message != "" {
		return strings.TrimSpace(rule.Message)
	}
	return strings.TrimSpace(rule.Rule)
}
