package resourcequota

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/forbidden"
	"github.com/kapi-dev/kapi/internal/quota"
)

// checkRequest measures a against quotas and returns copies of them with
// the usage they would have if a were admitted, or the error refusing a.
// quotas is never modified.
func checkRequest(e quota.Evaluator, quotas []corev1.ResourceQuota, a *admission.Attributes, limited []LimitedResource) ([]corev1.ResourceQuota, error) {
	obj := a.Object
	limitedScopes, err := matchedLimitedScopes(e, obj, limited)
	if err != nil {
		return quotas, nil
	}
	// Names that must be covered by some quota because the configuration
	// limits them by default.
	var mustCover []corev1.ResourceName
	if l := limitedFor(limited, a); len(l) > 0 {
		usage, err := e.Usage(obj)
		if err != nil {
			return quotas, err
		}
		mustCover = limitedByDefault(usage, l)
	}

	var interesting []int
	var covered []corev1.ResourceName
	var restrictedScopes []corev1.ScopedResourceSelectorRequirement
	for i := range quotas {
		q := &quotas[i]
		scopes, err := quota.MatchingScopes(e, obj, quota.ScopeSelectors(q))
		if err != nil {
			return nil, fmt.Errorf("error matching scopes of quota %s, err: %v", q.Name, err)
		}
		restrictedScopes = append(restrictedScopes, scopes...)
		match, err := quota.Matches(e, q, obj)
		if err != nil {
			return quotas, err
		}
		if !match {
			continue
		}
		restricted := e.MatchingResources(quota.ResourceNames(q.Status.Hard))
		if err := e.Constraints(restricted, obj); err != nil {
			return nil, forbidden.New(a, fmt.Errorf("failed quota: %s: %v", q.Name, err))
		}
		if !hasUsageStats(q, restricted) {
			return nil, forbidden.New(a, fmt.Errorf("status unknown for quota: %s, resources: %s", q.Name, quota.PrettyPrintNames(restricted)))
		}
		interesting = append(interesting, i)
		for _, r := range restricted {
			if !quota.Contains(covered, r) {
				covered = append(covered, r)
			}
		}
	}

	// Evaluators may look at the namespace of the object.
	if accessor, err := meta.Accessor(obj); err == nil && accessor.GetNamespace() == "" {
		accessor.SetNamespace(a.Namespace)
	}
	usage, err := e.Usage(obj)
	if err != nil {
		return quotas, err
	}
	if neg := quota.IsNegative(usage); len(neg) > 0 {
		return nil, forbidden.New(a, fmt.Errorf("quota usage is negative for resource(s): %s", quota.PrettyPrintNames(neg)))
	}

	delta := make(map[int]corev1.ResourceList, len(interesting))
	for _, i := range interesting {
		delta[i] = usage
	}
	var deltaNoQuota corev1.ResourceList
	if a.Operation == admission.Create && len(interesting) == 0 {
		deltaNoQuota = usage
	}
	if a.Operation == admission.Update {
		if a.OldObject == nil {
			return nil, forbidden.New(a, fmt.Errorf("unable to get previous usage since prior version of object was not found"))
		}
		// An update of a stored object is charged the difference; one
		// that creates (no resourceVersion) is charged in full.
		if old, err := meta.Accessor(a.OldObject); err == nil {
			if old.GetResourceVersion() != "" {
				prev, err := e.Usage(a.OldObject)
				if err != nil {
					return quotas, err
				}
				d := quota.SubtractWithNonNegativeResult(usage, prev)
				if len(interesting) == 0 {
					deltaNoQuota = d
				}
				for _, i := range interesting {
					match, err := quota.Matches(e, &quotas[i], a.OldObject)
					if err != nil {
						return quotas, err
					}
					if match {
						delta[i] = d
					}
				}
			} else if len(interesting) == 0 {
				deltaNoQuota = usage
			}
		}
	}
	for i := range delta {
		delta[i] = quota.RemoveZeros(delta[i])
		if len(delta[i]) == 0 {
			delete(delta, i)
		}
	}
	if len(interesting) != 0 {
		if len(delta) == 0 {
			return quotas, nil
		}
	} else if len(quota.RemoveZeros(deltaNoQuota)) == 0 {
		return quotas, nil
	}

	if missing := quota.Difference(mustCover, covered); len(missing) > 0 {
		return quotas, forbidden.New(a, fmt.Errorf("insufficient quota to consume: %s", quota.PrettyPrintNames(dedupe(missing))))
	}
	if uncovered := uncoveredScopes(limitedScopes, restrictedScopes); len(uncovered) > 0 {
		return quotas, fmt.Errorf("insufficient quota to match these scopes: %v", uncovered)
	}
	if len(interesting) == 0 {
		return quotas, nil
	}

	out := make([]corev1.ResourceQuota, len(quotas))
	for i := range quotas {
		out[i] = *quotas[i].DeepCopy()
	}
	for _, i := range interesting {
		d, ok := delta[i]
		if !ok {
			continue
		}
		q := &out[i]
		hard := quota.ResourceNames(q.Status.Hard)
		requested := quota.Mask(d, hard)
		newUsage := quota.Add(q.Status.Used, requested)
		if a.Subresource != "status" {
			masked := quota.Mask(newUsage, quota.ResourceNames(requested))
			if ok, exceeded := quota.LessThanOrEqual(masked, q.Status.Hard); !ok {
				return nil, forbidden.New(a, fmt.Errorf("exceeded quota: %s, requested: %s, used: %s, limited: %s",
					q.Name,
					quota.PrettyPrint(quota.Mask(requested, exceeded)),
					quota.PrettyPrint(quota.Mask(q.Status.Used, exceeded)),
					quota.PrettyPrint(quota.Mask(q.Status.Hard, exceeded))))
			}
		}
		q.Status.Used = newUsage
	}
	return out, nil
}

// hasUsageStats reports whether q's status has a used value for each of
// its hard names in interesting.
func hasUsageStats(q *corev1.ResourceQuota, interesting []corev1.ResourceName) bool {
	for name := range q.Status.Hard {
		if !quota.Contains(interesting, name) {
			continue
		}
		if _, ok := q.Status.Used[name]; !ok {
			return false
		}
	}
	return true
}

// limitedFor keeps the limited resources that name a's resource.
func limitedFor(limited []LimitedResource, a *admission.Attributes) []LimitedResource {
	var out []LimitedResource
	for _, l := range limited {
		if l.APIGroup == a.Resource.Group && l.Resource == a.Resource.Resource {
			out = append(out, l)
		}
	}
	return out
}

// limitedByDefault lists the consumed names that contain a matchContains
// string of limited.
func limitedByDefault(usage corev1.ResourceList, limited []LimitedResource) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, l := range limited {
		for name, q := range usage {
			if q.Sign() != 1 {
				continue
			}
			for _, s := range l.MatchContains {
				if strings.Contains(string(name), s) {
					out = append(out, name)
					break
				}
			}
		}
	}
	return out
}

func matchedLimitedScopes(e quota.Evaluator, obj runtime.Object, limited []LimitedResource) ([]corev1.ScopedResourceSelectorRequirement, error) {
	var out []corev1.ScopedResourceSelectorRequirement
	for _, l := range limited {
		m, err := quota.MatchingScopes(e, obj, l.MatchScopes)
		if err != nil {
			return nil, err
		}
		out = append(out, m...)
	}
	return out, nil
}

// uncoveredScopes lists the limited scopes no matching quota has.
func uncoveredScopes(limited, matched []corev1.ScopedResourceSelectorRequirement) []corev1.ScopedResourceSelectorRequirement {
	var out []corev1.ScopedResourceSelectorRequirement
	for _, l := range limited {
		covered := false
		for _, m := range matched {
			if m.ScopeName == l.ScopeName {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, l)
		}
	}
	return out
}

func dedupe(names []corev1.ResourceName) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, n := range names {
		if !quota.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
