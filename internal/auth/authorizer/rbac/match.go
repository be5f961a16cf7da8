package rbac

import (
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

// ruleAllows reports whether one policy rule grants the request.
func ruleAllows(a *authorizer.Attributes, rule *rbacv1.PolicyRule) bool {
	if !verbMatches(rule.Verbs, a.Verb) {
		return false
	}
	if !a.ResourceRequest {
		return urlMatches(rule.NonResourceURLs, a.Path)
	}
	return groupMatches(rule.APIGroups, a.APIGroup) &&
		resourceMatches(rule.Resources, a.Resource, a.Subresource) &&
		nameMatches(rule.ResourceNames, a.Name)
}

func verbMatches(verbs []string, verb string) bool {
	for _, v := range verbs {
		if v == rbacv1.VerbAll || v == verb {
			return true
		}
	}
	return false
}

func groupMatches(groups []string, group string) bool {
	for _, g := range groups {
		if g == rbacv1.APIGroupAll || g == group {
			return true
		}
	}
	return false
}

// resourceMatches accepts "*", the exact "resource" or
// "resource/subresource", and "*/subresource" for a subresource request.
// As upstream, "resource/*" has no special meaning: it names a subresource
// called "*".
func resourceMatches(resources []string, resource, subresource string) bool {
	for _, r := range resources {
		if r == rbacv1.ResourceAll {
			return true
		}
		if subresource == "" {
			if r == resource {
				return true
			}
			continue
		}
		// r must be "<resource>/<subresource>" or "*/<subresource>"; compare
		// in place rather than building the combined string per request.
		head, tail, ok := strings.Cut(r, "/")
		if ok && tail == subresource && (head == resource || head == rbacv1.ResourceAll) {
			return true
		}
	}
	return false
}

// nameMatches: a rule without names covers every name; a rule with names
// covers only those (so never a request without a name, such as list).
func nameMatches(names []string, name string) bool {
	if len(names) == 0 {
		return true
	}
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// urlMatches accepts "*", the exact path, and a "prefix*" rule for any path
// starting with prefix.
func urlMatches(urls []string, path string) bool {
	for _, u := range urls {
		if u == rbacv1.NonResourceAll || u == path {
			return true
		}
		if strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimRight(u, "*")) {
			return true
		}
	}
	return false
}
