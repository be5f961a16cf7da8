// Package abac is the ABAC authorization mode: a static policy file
// (--authorization-policy-file) of one JSON policy a line, each allowing a
// user or group to read, or read and write, resources or non-resource
// paths. It never denies: what no policy allows gets no opinion.
package abac

import (
	"context"
	"slices"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// Authorizer allows what one of its policies allows.
type Authorizer struct {
	policies    []policy
	unversioned int
}

var (
	_ authorizer.Authorizer   = (*Authorizer)(nil)
	_ authorizer.RuleResolver = (*Authorizer)(nil)
)

// NewFromFile reads the policy file at path: abac.authorization.kubernetes.io/v1beta1
// Policy objects, or the legacy unversioned format, one a line; blank lines
// and lines starting with # are skipped. An error names the line.
func NewFromFile(path string) (*Authorizer, error) {
	policies, unversioned, err := loadFile(path)
	if err != nil {
		return nil, err
	}
	return &Authorizer{policies: policies, unversioned: unversioned}, nil
}

// UnversionedLines is how many lines used the legacy format, which
// upstream warns about at start.
func (a *Authorizer) UnversionedLines() int { return a.unversioned }

// Authorize allows a request some policy matches; otherwise it has no
// opinion.
func (a *Authorizer) Authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	for i := range a.policies {
		if matches(&a.policies[i], attrs) {
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "No policy matched.", nil
}

// RulesFor lists the policies of u that apply in namespace, as rules.
// The list is complete: the file is all there is.
func (a *Authorizer) RulesFor(_ context.Context, u user.Info, namespace string) ([]authorizer.ResourceRule, []authorizer.NonResourceRule, bool, error) {
	var rules []authorizer.ResourceRule
	var nonRules []authorizer.NonResourceRule
	for i := range a.policies {
		p := &a.policies[i]
		if !subjectMatches(p, u) || (p.Namespace != "*" && p.Namespace != namespace) {
			continue
		}
		if p.Resource != "" {
			rules = append(rules, authorizer.ResourceRule{Verbs: verbs(p.Readonly), APIGroups: []string{p.APIGroup}, Resources: []string{p.Resource}})
		}
		if p.NonResourcePath != "" {
			nonRules = append(nonRules, authorizer.NonResourceRule{Verbs: verbs(p.Readonly), NonResourceURLs: []string{p.NonResourcePath}})
		}
	}
	return rules, nonRules, false, nil
}

func verbs(readonly bool) []string {
	if readonly {
		return slices.Clone(readOnlyVerbs)
	}
	return []string{"*"}
}

func matches(p *policy, a authorizer.Attributes) bool {
	if !subjectMatches(p, a.User) {
		return false
	}
	if p.Readonly && !isReadOnly(a.Verb) {
		return false
	}
	if a.ResourceRequest {
		return (p.Namespace == "*" || p.Namespace == a.Namespace) &&
			(p.Resource == "*" || p.Resource == a.Resource) &&
			(p.APIGroup == "*" || p.APIGroup == a.APIGroup)
	}
	return pathMatches(p.NonResourcePath, a.Path)
}

// subjectMatches asks every subject the policy names to match; a policy
// naming none matches nobody.
func subjectMatches(p *policy, u user.Info) bool {
	if u == nil {
		return false
	}
	matched := false
	if p.User != "" {
		if p.User != "*" && p.User != u.GetName() {
			return false
		}
		matched = true
	}
	if p.Group != "" {
		if p.Group != "*" && !slices.Contains(u.GetGroups(), p.Group) {
			return false
		}
		matched = true
	}
	return matched
}
