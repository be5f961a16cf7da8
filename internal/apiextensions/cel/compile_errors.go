package cel

import (
	"fmt"
	"math"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apiextensions/schema"
)

// CompileErrors is for CRD validation: the compile and cost errors of every
// rule with upstream's field paths, rooted at fldPath (the openAPIV3Schema
// path of the version being validated).
func CompileErrors(s *schema.Structural, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	total := &totalCost{}
	visit := func(s *schema.Structural, n *nodeValidator, path *field.Path, card *uint64, uncorrelatable *field.Path) {
		errs = append(errs, nodeCompileErrors(s, n, path, card, uncorrelatable, total)...)
	}
	if _, err := compileSchema(s, fldPath, visit); err != nil {
		return append(errs, field.InternalError(fldPath.Child("x-kubernetes-validations"), err))
	}
	if total.total > StaticEstimatedCRDCostLimit {
		for _, e := range total.mostExpensive {
			errs = append(errs, field.Forbidden(e.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
		}
		errs = append(errs, field.Forbidden(fldPath, costErrorMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", total.total, StaticEstimatedCRDCostLimit)))
	}
	return errs
}

func nodeCompileErrors(s *schema.Structural, n *nodeValidator, path *field.Path, card *uint64, uncorrelatable *field.Path, total *totalCost) field.ErrorList {
	var errs field.ErrorList
	rulesPath := path.Child("x-kubernetes-validations")
	if n.initErr != "" {
		return field.ErrorList{field.InternalError(rulesPath, fmt.Errorf("internal error: failed to retrieve type information for x-kubernetes-validations"))}
	}
	for i := range n.rules {
		r := &n.rules[i]
		rp := rulesPath.Index(i)
		if r.rule.FieldPath != "" && !r.fieldPathOK {
			errs = append(errs, field.Invalid(rp.Child("fieldPath"), r.rule.FieldPath, "must be a valid path"))
		}
		cost := expressionCost(r.maxCost, card, r.maxCardinality)
		if cost > StaticEstimatedCostLimit {
			errs = append(errs, field.Forbidden(rp.Child("rule"), costErrorMessage("estimated rule cost", cost, StaticEstimatedCostLimit)))
		}
		total.observe(rp.Child("rule"), cost)
		if r.errDetail != "" {
			errs = append(errs, field.Invalid(rp.Child("rule"), r.rule, r.errDetail))
		}
		if r.msgErr != "" {
			errs = append(errs, field.Invalid(rp.Child("messageExpression"), r.rule, r.msgErr))
		} else if r.msgProg != nil {
			msgCost := r.msgMaxCost
			if msgCost > StaticEstimatedCostLimit {
				errs = append(errs, field.Forbidden(rp.Child("messageExpression"), costErrorMessage("estimated messageExpression cost", msgCost, StaticEstimatedCostLimit)))
			}
			total.observe(rp.Child("messageExpression"), msgCost)
		}
		switch {
		case r.usesOldSelf && uncorrelatable != nil:
			errs = append(errs, field.Invalid(rp.Child("rule"), r.rule.Rule, fmt.Sprintf("oldSelf cannot be used on the uncorrelatable portion of the schema within %v", uncorrelatable)))
		case !r.usesOldSelf && r.rule.OptionalOldSelf != nil && r.prog != nil:
			errs = append(errs, field.Invalid(rp.Child("optionalOldSelf"), *r.rule.OptionalOldSelf, "may not be set if oldSelf is not used in rule"))
		}
	}
	return errs
}

// expressionCost is a rule's estimated cost times how often it can run:
// the product of the bounds above it, or the request-size bound when
// something above it is unbounded.
func expressionCost(maxCost uint64, card *uint64, fallback uint64) uint64 {
	c := fallback
	if card != nil {
		c = *card
	}
	if maxCost == 0 {
		return 0
	}
	if math.MaxUint64/maxCost < c {
		return math.MaxUint64
	}
	return maxCost * c
}

func costErrorMessage(name string, cost, limit uint64) string {
	f := float64(cost) / float64(limit)
	var factor string
	switch {
	case f > 100:
		factor = "more than 100x"
	case f < 1.5:
		factor = fmt.Sprintf("%fx", f)
	default:
		factor = fmt.Sprintf("%.1fx", f)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", name, factor)
}

type ruleCost struct {
	path *field.Path
	cost uint64
}

// totalCost sums the estimated costs of a schema's rules and remembers the
// few that contribute most, to name them when the total is too high.
type totalCost struct {
	total         uint64
	mostExpensive []ruleCost
}

func (t *totalCost) observe(path *field.Path, cost uint64) {
	if math.MaxUint64-t.total < cost {
		t.total = math.MaxUint64
	} else {
		t.total += cost
	}
	if cost < StaticEstimatedCRDCostLimit/100 {
		return
	}
	t.mostExpensive = append(t.mostExpensive, ruleCost{path: path, cost: cost})
	sort.SliceStable(t.mostExpensive, func(i, j int) bool { return t.mostExpensive[i].cost > t.mostExpensive[j].cost })
	if len(t.mostExpensive) > 4 {
		t.mostExpensive = t.mostExpensive[:4]
	}
}
