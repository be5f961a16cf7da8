package controllers

import (
	"context"
	"errors"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// syncNonStructural keeps the NonStructuralSchema condition: True with the
// violations while any version's schema is not structural, absent
// otherwise. A generation is judged once: the schema is in spec, so it
// cannot change without a new generation.
func (c *controller) syncNonStructural(ctx context.Context, crd *apiextv1.CustomResourceDefinition) (*apiextv1.CustomResourceDefinition, error) {
	if seen, ok := c.lastGeneration[crd.Name]; ok && seen.uid == crd.UID && crd.Generation <= seen.generation {
		return crd, nil
	}
	out, err := c.update(ctx, c.status, crd, func(crd *apiextv1.CustomResourceDefinition) bool {
		want := c.nonStructuralCondition(crd)
		old := findCondition(crd, apiextv1.NonStructuralSchema)
		switch {
		case want == nil && old == nil:
			return false
		case want == nil:
			removeCondition(crd, apiextv1.NonStructuralSchema)
		case sameCondition(want, old):
			return false
		default:
			setCondition(crd, *want, c.now())
		}
		return true
	})
	if err == nil && out != nil {
		c.lastGeneration[out.Name] = judged{uid: out.UID, generation: out.Generation}
	}
	return out, err
}

// judged is the generation of a CRD whose schemas were last checked; the
// uid tells a recreated CRD of the same name apart.
type judged struct {
	uid        types.UID
	generation int64
}

// nonStructuralCondition is the condition crd deserves, nil when its
// schemas are structural.
func (c *controller) nonStructuralCondition(crd *apiextv1.CustomResourceDefinition) *apiextv1.CustomResourceDefinitionCondition {
	var reasons []string
	if crd.Spec.PreserveUnknownFields {
		reasons = append(reasons, field.Invalid(field.NewPath("spec", "preserveUnknownFields"), true, "must be false").Error())
	}
	if c.structural != nil {
		reasons = append(reasons, c.structural(crd)...)
	}
	if len(reasons) == 0 {
		return nil
	}
	errs := make([]error, 0, len(reasons))
	for _, r := range reasons {
		if len(errs) > 0 && strings.HasPrefix(r, "spec.preserveUnknownFields:") && crd.Spec.PreserveUnknownFields {
			continue // already reported above
		}
		errs = append(errs, errors.New(r))
	}
	return &apiextv1.CustomResourceDefinitionCondition{
		Type: apiextv1.NonStructuralSchema, Status: apiextv1.ConditionTrue,
		Reason: "Violations", Message: utilerrors.NewAggregate(errs).Error(),
	}
}
