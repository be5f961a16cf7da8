package controllers

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// syncNames is the naming controller: it accepts the names spec asks for
// unless another CRD of the group already accepted them, and says so in
// NamesAccepted. A conflicting name keeps its previously accepted value.
func (c *controller) syncNames(ctx context.Context, crd *apiextv1.CustomResourceDefinition) (*apiextv1.CustomResourceDefinition, error) {
	if equality.Semantic.DeepEqual(crd.Spec.Names, crd.Status.AcceptedNames) {
		return crd, nil
	}
	wrote := false
	out, err := c.update(ctx, c.status, crd, func(crd *apiextv1.CustomResourceDefinition) bool {
		names, accepted, established := c.acceptNames(crd)
		if equality.Semantic.DeepEqual(crd.Status.AcceptedNames, names) &&
			sameCondition(&accepted, findCondition(crd, apiextv1.NamesAccepted)) {
			return false
		}
		now := c.now()
		crd.Status.AcceptedNames = names
		setCondition(crd, accepted, now)
		setCondition(crd, established, now)
		wrote = true
		return true
	})
	if err == nil && out != nil && wrote {
		// Names this CRD gave up may be what a sibling waits for.
		c.requeueGroup(crd.Spec.Group, crd.Name)
	}
	return out, err
}

// acceptNames computes the accepted names and the NamesAccepted and
// Established conditions of crd against the names its group has taken.
func (c *controller) acceptNames(crd *apiextv1.CustomResourceDefinition) (apiextv1.CustomResourceDefinitionNames, apiextv1.CustomResourceDefinitionCondition, apiextv1.CustomResourceDefinitionCondition) {
	resources, kinds := sets.New[string](), sets.New[string]()
	for _, other := range c.cache.group(crd.Spec.Group) {
		n := other.Status.AcceptedNames
		resources.Insert(n.Plural, n.Singular)
		resources.Insert(n.ShortNames...)
		kinds.Insert(n.Kind, n.ListKind)
	}

	want, have := crd.Spec.Names, crd.Status.AcceptedNames
	names := have
	accepted := apiextv1.CustomResourceDefinitionCondition{Type: apiextv1.NamesAccepted, Status: apiextv1.ConditionUnknown}
	conflict := func(reason string, err error) {
		accepted.Status, accepted.Reason, accepted.Message = apiextv1.ConditionFalse, reason, err.Error()
	}

	if err := freeOrOurs(want.Plural, have.Plural, resources); err != nil {
		conflict("PluralConflict", err)
	} else {
		names.Plural = want.Plural
	}
	if err := freeOrOurs(want.Singular, have.Singular, resources); err != nil {
		conflict("SingularConflict", err)
	} else {
		names.Singular = want.Singular
	}
	if !slices.Equal(want.ShortNames, have.ShortNames) {
		var errs []error
		for _, short := range want.ShortNames {
			if slices.Contains(have.ShortNames, short) {
				continue
			}
			if err := freeOrOurs(short, "", resources); err != nil {
				errs = append(errs, err)
			}
		}
		if agg := utilerrors.NewAggregate(errs); agg != nil {
			conflict("ShortNamesConflict", agg)
		} else {
			names.ShortNames = want.ShortNames
		}
	}
	if err := freeOrOurs(want.Kind, have.Kind, kinds); err != nil {
		conflict("KindConflict", err)
	} else {
		names.Kind = want.Kind
	}
	if err := freeOrOurs(want.ListKind, have.ListKind, kinds); err != nil {
		conflict("ListKindConflict", err)
	} else {
		names.ListKind = want.ListKind
	}
	names.Categories = want.Categories

	if accepted.Status == apiextv1.ConditionUnknown {
		accepted.Status, accepted.Reason, accepted.Message = apiextv1.ConditionTrue, "NoConflicts", "no conflicts found"
	}

	// Established turns True only in a later write (establish), after
	// NamesAccepted has been stored, so that whoever serves the resource
	// sees accepted names before it sees Established.
	established := apiextv1.CustomResourceDefinitionCondition{
		Type: apiextv1.Established, Status: apiextv1.ConditionFalse,
		Reason: "NotAccepted", Message: "not all names are accepted",
	}
	if old := findCondition(crd, apiextv1.Established); old != nil {
		established = *old
	}
	if established.Status != apiextv1.ConditionTrue && accepted.Status == apiextv1.ConditionTrue {
		established = apiextv1.CustomResourceDefinitionCondition{
			Type: apiextv1.Established, Status: apiextv1.ConditionFalse,
			Reason: "Installing", Message: "the initial names have been accepted",
		}
	}
	return names, accepted, established
}

// freeOrOurs accepts a name that is already this CRD's or that nobody in
// the group has taken.
func freeOrOurs(want, have string, taken sets.Set[string]) error {
	if want == have || !taken.Has(want) {
		return nil
	}
	return fmt.Errorf("%q is already in use", want)
}
