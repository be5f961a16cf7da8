package rbac

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kapi-dev/kapi/internal/auth/user"
)

// ConfirmNoEscalation returns nil when ownerRules (the rules u holds) cover
// every one of rules. Otherwise its error lists the missing permissions in
// upstream's words:
//
//	user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
//	{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}
//
// The storage wraps it in a 403 Forbidden naming the role or binding.
func ConfirmNoEscalation(u user.Info, ownerRules, rules []rbacv1.PolicyRule) error {
	if u == nil {
		return errors.New("no user on context")
	}
	ok, missing := Covers(ownerRules, rules)
	if ok {
		return nil
	}
	lines := make([]string, 0, len(missing))
	for _, r := range compact(missing) {
		lines = append(lines, compactString(&r))
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	return fmt.Errorf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s",
		u.GetName(), u.GetGroups(), strings.Join(lines, "\n"))
}

// simpleKey identifies rules that differ only by verb: one group, one
// resource, at most one name and nothing else.
type simpleKey struct {
	group, resource, name string
	named                 bool
}

// compact merges the verbs of rules that are otherwise equal and simple (as
// split produces them), so a missing "get" and "list" on pods read as one
// line. Other rules are kept as they are.
func compact(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	out := make([]rbacv1.PolicyRule, 0, len(rules))
	merged := map[simpleKey]int{} // index in out
	for _, r := range rules {
		key, simple := simpleKeyOf(&r)
		if !simple {
			out = append(out, r)
			continue
		}
		if i, seen := merged[key]; seen {
			out[i].Verbs = append(out[i].Verbs, r.Verbs...)
			continue
		}
		merged[key] = len(out)
		c := *r.DeepCopy()
		out = append(out, c)
	}
	return out
}

func simpleKeyOf(r *rbacv1.PolicyRule) (simpleKey, bool) {
	if len(r.APIGroups) != 1 || len(r.Resources) != 1 || len(r.ResourceNames) > 1 || r.NonResourceURLs != nil {
		return simpleKey{}, false
	}
	k := simpleKey{group: r.APIGroups[0], resource: r.Resources[0]}
	if len(r.ResourceNames) == 1 {
		k.name, k.named = r.ResourceNames[0], true
	}
	return k, true
}

// compactString is upstream's one-line form of a rule, listing only the
// fields that are set: {APIGroups:[""], Resources:["pods"], Verbs:["get"]}.
func compactString(r *rbacv1.PolicyRule) string {
	var parts []string
	field := func(name string, v []string) {
		if len(v) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", name, v))
		}
	}
	field("APIGroups", r.APIGroups)
	field("Resources", r.Resources)
	field("NonResourceURLs", r.NonResourceURLs)
	field("ResourceNames", r.ResourceNames)
	field("Verbs", r.Verbs)
	return "{" + strings.Join(parts, ", ") + "}"
}
