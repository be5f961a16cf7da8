package flowcontrol

import (
	"cmp"
	"slices"
	"strings"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// RequestDigest is what classification looks at: the parsed request and
// the (possibly impersonated) user.
type RequestDigest struct {
	RequestInfo *request.RequestInfo
	User        user.Info
}

// sortFlowSchemas orders schemas as upstream matches them: lowest
// matchingPrecedence first, ties broken by name.
func sortFlowSchemas(schemas []*flowcontrolv1.FlowSchema) {
	slices.SortStableFunc(schemas, func(a, b *flowcontrolv1.FlowSchema) int {
		if c := cmp.Compare(a.Spec.MatchingPrecedence, b.Spec.MatchingPrecedence); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
}

// matchesFlowSchema reports whether any rule of fs matches d.
func matchesFlowSchema(fs *flowcontrolv1.FlowSchema, d RequestDigest) bool {
	for i := range fs.Spec.Rules {
		if matchesRule(&fs.Spec.Rules[i], d) {
			return true
		}
	}
	return false
}

// matchesRule needs one subject to match, then one resource rule for a
// resource request or one non-resource rule for any other request.
func matchesRule(rule *flowcontrolv1.PolicyRulesWithSubjects, d RequestDigest) bool {
	if !slices.ContainsFunc(rule.Subjects, func(s flowcontrolv1.Subject) bool { return matchesSubject(s, d.User) }) {
		return false
	}
	ri := d.RequestInfo
	if ri.IsResourceRequest {
		return slices.ContainsFunc(rule.ResourceRules, func(r flowcontrolv1.ResourcePolicyRule) bool { return matchesResourceRule(r, ri) })
	}
	return slices.ContainsFunc(rule.NonResourceRules, func(r flowcontrolv1.NonResourcePolicyRule) bool {
		return listMatches(r.Verbs, ri.Verb, flowcontrolv1.VerbAll) && matchesNonResourceURL(r.NonResourceURLs, ri.Path)
	})
}

const serviceAccountPrefix = "system:serviceaccount:"

func matchesSubject(s flowcontrolv1.Subject, u user.Info) bool {
	if u == nil {
		return false
	}
	switch s.Kind {
	case flowcontrolv1.SubjectKindUser:
		return s.User != nil && (s.User.Name == flowcontrolv1.NameAll || s.User.Name == u.GetName())
	case flowcontrolv1.SubjectKindGroup:
		return s.Group != nil && (s.Group.Name == flowcontrolv1.NameAll || slices.Contains(u.GetGroups(), s.Group.Name))
	case flowcontrolv1.SubjectKindServiceAccount:
		if s.ServiceAccount == nil {
			return false
		}
		// system:serviceaccount:<namespace>:<name>; name "*" is any
		// service account of the namespace.
		rest, ok := strings.CutPrefix(u.GetName(), serviceAccountPrefix+s.ServiceAccount.Namespace+":")
		if !ok {
			return false
		}
		if s.ServiceAccount.Name == flowcontrolv1.NameAll {
			return true
		}
		return rest == s.ServiceAccount.Name
	}
	return false
}

func matchesResourceRule(r flowcontrolv1.ResourcePolicyRule, ri *request.RequestInfo) bool {
	resource := ri.Resource
	if ri.Subresource != "" {
		resource += "/" + ri.Subresource
	}
	if !listMatches(r.Verbs, ri.Verb, flowcontrolv1.VerbAll) ||
		!listMatches(r.Resources, resource, flowcontrolv1.ResourceAll) ||
		!listMatches(r.APIGroups, ri.APIGroup, flowcontrolv1.APIGroupAll) {
		return false
	}
	if ri.Namespace == "" {
		return r.ClusterScope
	}
	return listMatches(r.Namespaces, ri.Namespace, flowcontrolv1.NamespaceEvery)
}

// listMatches is upstream's rule for verbs, groups, resources and
// namespaces: the wildcard counts only as the list's sole member.
func listMatches(list []string, x, wildcard string) bool {
	if len(list) == 1 && list[0] == wildcard {
		return true
	}
	return slices.Contains(list, x)
}

// matchesNonResourceURL: "*" matches every path, any other entry matches
// itself and, as a prefix (a trailing "*" dropped, a "/" added), every
// path below it.
func matchesNonResourceURL(urls []string, path string) bool {
	for _, u := range urls {
		if u == flowcontrolv1.NonResourceAll || u == path {
			return true
		}
		prefix := strings.TrimSuffix(u, "*")
		if !strings.HasSuffix(prefix, "/") {
			prefix += "/"
		}
		if strings.HasPrefix(path, prefix) {
			return true
		}
	}
	return false
}

// flowDistinguisher is the part of the flow identity the schema's
// distinguisher method picks: the user name, the namespace, or nothing.
func flowDistinguisher(fs *flowcontrolv1.FlowSchema, d RequestDigest) string {
	if fs.Spec.DistinguisherMethod == nil {
		return ""
	}
	switch fs.Spec.DistinguisherMethod.Type {
	case flowcontrolv1.FlowDistinguisherMethodByUserType:
		if d.User != nil {
			return d.User.GetName()
		}
	case flowcontrolv1.FlowDistinguisherMethodByNamespaceType:
		return d.RequestInfo.Namespace
	}
	return ""
}

// flowHash identifies a flow (schema name and distinguisher) for shuffle
// sharding: FNV-1a over both with a separator, no allocation.
func flowHash(schema, distinguisher string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := 0; i < len(schema); i++ {
		h = (h ^ uint64(schema[i])) * prime
	}
	h = (h ^ ',') * prime
	for i := 0; i < len(distinguisher); i++ {
		h = (h ^ uint64(distinguisher[i])) * prime
	}
	return h
}
