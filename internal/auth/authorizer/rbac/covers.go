package rbac

import (
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// Covers reports whether ownerRules grant everything servantRules grant.
// The servant rules are split into single-permission rules (one group,
// resource, verb and name, or one URL and verb); the ones no owner rule
// covers are returned in that split order.
func Covers(ownerRules, servantRules []rbacv1.PolicyRule) (bool, []rbacv1.PolicyRule) {
	var missing []rbacv1.PolicyRule
	for i := range servantRules {
		for _, p := range split(&servantRules[i]) {
			if !anyCovers(ownerRules, &p) {
				missing = append(missing, p)
			}
		}
	}
	return len(missing) == 0, missing
}

// split breaks a rule into rules of one permission each: group × resource
// × verb × (name, when the rule names objects), then URL × verb. A single
// permission is covered by one owner rule or not at all, so checking them
// one by one is exact.
func split(r *rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	one := func(s string) []string { return []string{s} }
	for _, g := range r.APIGroups {
		for _, res := range r.Resources {
			for _, v := range r.Verbs {
				if len(r.ResourceNames) == 0 {
					out = append(out, rbacv1.PolicyRule{APIGroups: one(g), Resources: one(res), Verbs: one(v)})
					continue
				}
				for _, n := range r.ResourceNames {
					out = append(out, rbacv1.PolicyRule{APIGroups: one(g), Resources: one(res), Verbs: one(v), ResourceNames: one(n)})
				}
			}
		}
	}
	for _, u := range r.NonResourceURLs {
		for _, v := range r.Verbs {
			out = append(out, rbacv1.PolicyRule{NonResourceURLs: one(u), Verbs: one(v)})
		}
	}
	return out
}

func anyCovers(owners []rbacv1.PolicyRule, p *rbacv1.PolicyRule) bool {
	for i := range owners {
		if covers(&owners[i], p) {
			return true
		}
	}
	return false
}

// covers reports whether owner grants the single permission p (a result of
// split). Wildcards in p are literal: only a wildcard owner covers a
// wildcard servant.
func covers(owner, p *rbacv1.PolicyRule) bool {
	if !allIn(owner.Verbs, p.Verbs, rbacv1.VerbAll) || !allIn(owner.APIGroups, p.APIGroups, rbacv1.APIGroupAll) {
		return false
	}
	if len(owner.ResourceNames) > 0 {
		// Named owner rules cover only the same names, never "all names"
		// nor a URL.
		if len(p.ResourceNames) == 0 || !allIn(owner.ResourceNames, p.ResourceNames, "") {
			return false
		}
	}
	for _, res := range p.Resources {
		if !resourceCovered(owner.Resources, res) {
			return false
		}
	}
	for _, u := range p.NonResourceURLs {
		if !urlCovered(owner.NonResourceURLs, u) {
			return false
		}
	}
	return true
}

// allIn reports whether set holds every element of want, or the wildcard
// (when wildcard is not "").
func allIn(set, want []string, wildcard string) bool {
	if wildcard != "" && slices.Contains(set, wildcard) {
		return true
	}
	for _, w := range want {
		if !slices.Contains(set, w) {
			return false
		}
	}
	return true
}

// resourceCovered: "*" covers everything, a resource covers itself, and
// "*/sub" covers "x/sub".
func resourceCovered(owned []string, res string) bool {
	if slices.Contains(owned, rbacv1.ResourceAll) || slices.Contains(owned, res) {
		return true
	}
	_, sub, ok := strings.Cut(res, "/")
	return ok && slices.Contains(owned, "*/"+sub)
}

// urlCovered: a URL covers itself; "prefix*" covers what starts with prefix
// (so "*" covers every URL).
func urlCovered(owned []string, u string) bool {
	for _, o := range owned {
		if o == u || (strings.HasSuffix(o, "*") && strings.HasPrefix(u, strings.TrimRight(o, "*"))) {
			return true
		}
	}
	return false
}
