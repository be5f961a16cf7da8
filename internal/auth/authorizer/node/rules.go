package node

import (
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

// rulesAllow reports whether one of rules grants the request, with RBAC's
// matching: "*" wildcards, "*/subresource", resource names, and URL
// prefixes ending in "*".
func rulesAllow(a authorizer.Attributes, rules []rbacv1.PolicyRule) bool {
	return slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool { return ruleAllows(a, r) })
}

func ruleAllows(a authorizer.Attributes, r rbacv1.PolicyRule) bool {
	if !matches(r.Verbs, a.Verb) {
		return false
	}
	if !a.ResourceRequest {
		return slices.ContainsFunc(r.NonResourceURLs, func(u string) bool {
			return u == "*" || u == a.Path || (strings.HasSuffix(u, "*") && strings.HasPrefix(a.Path, strings.TrimSuffix(u, "*")))
		})
	}
	if !matches(r.APIGroups, a.APIGroup) {
		return false
	}
	resource := a.Resource
	if a.Subresource != "" {
		resource += "/" + a.Subresource
	}
	if !slices.ContainsFunc(r.Resources, func(res string) bool {
		return res == "*" || res == resource || (a.Subresource != "" && res == "*/"+a.Subresource)
	}) {
		return false
	}
	return len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, a.Name)
}

func matches(set []string, v string) bool {
	return slices.Contains(set, "*") || slices.Contains(set, v)
}
