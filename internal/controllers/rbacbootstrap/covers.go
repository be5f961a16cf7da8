package rbacbootstrap

import (
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// missingRules returns the rules of want that have rules does not already
// grant, split into single-verb, single-resource pieces as upstream's
// reconciliation reports them. Only what is missing gets added, so an
// existing role keeps every rule an admin gave it.
func missingRules(have, want []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var missing []rbacv1.PolicyRule
	for _, w := range want {
		for _, piece := range breakdown(w) {
			if !slices.ContainsFunc(have, func(h rbacv1.PolicyRule) bool { return covers(h, piece) }) {
				missing = append(missing, piece)
			}
		}
	}
	return missing
}

// breakdown splits a rule into rules of one verb and one group/resource
// (keeping resource names together) or one verb and one URL.
func breakdown(r rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, verb := range r.Verbs {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				out = append(out, rbacv1.PolicyRule{
					Verbs: []string{verb}, APIGroups: []string{g}, Resources: []string{res},
					ResourceNames: slices.Clone(r.ResourceNames),
				})
			}
		}
		for _, u := range r.NonResourceURLs {
			out = append(out, rbacv1.PolicyRule{Verbs: []string{verb}, NonResourceURLs: []string{u}})
		}
	}
	return out
}

// covers reports whether owner grants everything sub grants.
func covers(owner, sub rbacv1.PolicyRule) bool {
	return allOrAll(owner.Verbs, sub.Verbs) &&
		allOrAll(owner.APIGroups, sub.APIGroups) &&
		resourcesCover(owner.Resources, sub.Resources) &&
		namesCover(owner.ResourceNames, sub.ResourceNames) &&
		urlsCover(owner.NonResourceURLs, sub.NonResourceURLs)
}

// namesCover: an owner without names covers every name; one with names
// covers only rules naming some of them.
func namesCover(owner, sub []string) bool {
	if len(owner) == 0 {
		return true
	}
	return len(sub) > 0 && hasAll(owner, sub)
}

func hasAll(set, items []string) bool {
	for _, i := range items {
		if !slices.Contains(set, i) {
			return false
		}
	}
	return true
}

func allOrAll(set, items []string) bool { return slices.Contains(set, "*") || hasAll(set, items) }

// resourcesCover understands "*" and "*/subresource".
func resourcesCover(set, items []string) bool {
	if slices.Contains(set, "*") {
		return true
	}
	for _, r := range items {
		if slices.Contains(set, r) {
			continue
		}
		if i := strings.Index(r, "/"); i >= 0 && slices.Contains(set, "*"+r[i:]) {
			continue
		}
		return false
	}
	return true
}

// urlsCover understands exact URLs and trailing-"*" prefixes.
func urlsCover(set, items []string) bool {
	for _, u := range items {
		if !slices.ContainsFunc(set, func(s string) bool {
			return s == u || (strings.HasSuffix(s, "*") && strings.HasPrefix(u, strings.TrimSuffix(s, "*")))
		}) {
			return false
		}
	}
	return true
}
