package audit

import (
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"

	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
)

// Level and Stage are the audit.k8s.io/v1 types, named here for brevity.
type (
	Level = auditv1.Level
	Stage = auditv1.Stage
)

// RequestAuditConfig is what the policy says about one request.
type RequestAuditConfig struct {
	Level             Level
	OmitStages        []Stage
	OmitManagedFields bool
}

// Checker picks the audit configuration of a request.
type Checker interface {
	LevelAndStages(attrs authorizer.Attributes) RequestAuditConfig
}

// NewChecker returns a Checker that evaluates p's rules in order; the first
// match wins and no match means level None. Each rule omits its own stages
// and the policy's. p is not modified.
func NewChecker(p *auditv1.Policy) Checker {
	c := &checker{
		rules:             make([]auditv1.PolicyRule, len(p.Rules)),
		omitStages:        slices.Clone(p.OmitStages),
		omitManagedFields: p.OmitManagedFields,
	}
	for i, r := range p.Rules {
		r.OmitStages = unionStages(p.OmitStages, r.OmitStages)
		c.rules[i] = r
	}
	return c
}

type checker struct {
	rules             []auditv1.PolicyRule
	omitStages        []Stage
	omitManagedFields bool
}

func (c *checker) LevelAndStages(a authorizer.Attributes) RequestAuditConfig {
	for i := range c.rules {
		r := &c.rules[i]
		if ruleMatches(r, &a) {
			omit := c.omitManagedFields
			if r.OmitManagedFields != nil {
				omit = *r.OmitManagedFields
			}
			return RequestAuditConfig{Level: r.Level, OmitStages: r.OmitStages, OmitManagedFields: omit}
		}
	}
	return RequestAuditConfig{Level: auditv1.LevelNone, OmitStages: c.omitStages, OmitManagedFields: c.omitManagedFields}
}

// unionStages returns the stages in either list once each, sorted so the
// result does not depend on the order they were written in.
func unionStages(a, b []Stage) []Stage {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

func ruleMatches(r *auditv1.PolicyRule, a *authorizer.Attributes) bool {
	if len(r.Users) > 0 && (a.User == nil || !slices.Contains(r.Users, a.User.GetName())) {
		return false
	}
	if len(r.UserGroups) > 0 {
		if a.User == nil || !slices.ContainsFunc(a.User.GetGroups(), func(g string) bool {
			return slices.Contains(r.UserGroups, g)
		}) {
			return false
		}
	}
	if len(r.Verbs) > 0 && !slices.Contains(r.Verbs, a.Verb) {
		return false
	}
	if len(r.Namespaces) > 0 || len(r.Resources) > 0 {
		return a.ResourceRequest && resourceMatches(r, a)
	}
	if len(r.NonResourceURLs) > 0 {
		return !a.ResourceRequest && slices.ContainsFunc(r.NonResourceURLs, func(spec string) bool {
			return pathMatches(a.Path, spec)
		})
	}
	return true
}

// pathMatches matches "*", an exact path, or a prefix ending in "*".
func pathMatches(path, spec string) bool {
	if spec == "*" || spec == path {
		return true
	}
	prefix, wild := strings.CutSuffix(spec, "*")
	return wild && strings.HasPrefix(path, strings.TrimRight(prefix, "*"))
}

// resourceMatches matches namespaces ("" is cluster-scoped) and the
// resource forms "res", "res/sub", "*", "*/sub" and "res/*".
func resourceMatches(r *auditv1.PolicyRule, a *authorizer.Attributes) bool {
	if len(r.Namespaces) > 0 && !slices.Contains(r.Namespaces, a.Namespace) {
		return false
	}
	if len(r.Resources) == 0 {
		return true
	}
	combined := a.Resource
	if a.Subresource != "" {
		combined += "/" + a.Subresource
	}
	for _, gr := range r.Resources {
		if gr.Group != a.APIGroup && gr.Group != "*" {
			continue
		}
		if len(gr.Resources) == 0 {
			return true
		}
		if len(gr.ResourceNames) > 0 && !slices.Contains(gr.ResourceNames, a.Name) {
			continue
		}
		for _, res := range gr.Resources {
			if res == combined || res == "*" {
				return true
			}
			if sub, ok := strings.CutPrefix(res, "*/"); ok && a.Subresource != "" && sub == a.Subresource {
				return true
			}
			if base, ok := strings.CutSuffix(res, "/*"); ok && base == a.Resource {
				return true
			}
		}
	}
	return false
}
