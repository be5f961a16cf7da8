// Package authorizer defines how requests are authorized: the attributes of
// a request, the decision, and the Authorizer interface.
package authorizer

import (
	"context"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kapi-dev/kapi/internal/auth/user"
)

// Decision is an authorizer's answer.
type Decision int

// The decisions.
const (
	DecisionDeny Decision = iota
	DecisionAllow
	DecisionNoOpinion
)

// Attributes describe one request to an authorizer.
type Attributes struct {
	User            user.Info
	Verb            string
	Namespace       string
	APIGroup        string
	APIVersion      string
	Resource        string
	Subresource     string
	Name            string
	ResourceRequest bool
	// Path is set for non-resource requests.
	Path string
	// FieldSelectorRequirements and LabelSelectorRequirements narrow a
	// resource check to the objects the selectors match (authorization
	// with selectors, as the CEL authorizer library's fieldSelector and
	// labelSelector ask); a selector that did not parse has no
	// requirements and its parsing error set, as upstream. Authorizers
	// that do not look at selectors (RBAC) decide without them.
	FieldSelectorRequirements fields.Requirements
	FieldSelectorParsingErr   error
	LabelSelectorRequirements labels.Requirements
	LabelSelectorParsingErr   error
}

// Authorizer decides whether a request may proceed; reason is shown to the
// user on a denial.
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (decision Decision, reason string, err error)
}

// Func adapts a function to Authorizer.
type Func func(ctx context.Context, a Attributes) (Decision, string, error)

// Authorize calls f.
func (f Func) Authorize(ctx context.Context, a Attributes) (Decision, string, error) {
	return f(ctx, a)
}

// ResourceRule is one rule of what a user may do with resources, as
// SelfSubjectRulesReview reports it.
type ResourceRule struct {
	Verbs, APIGroups, Resources, ResourceNames []string
}

// NonResourceRule is one rule of what a user may do with non-resource
// URLs.
type NonResourceRule struct {
	Verbs, NonResourceURLs []string
}

// RuleResolver lists the rules an authorizer applies to a user in a
// namespace ("" for cluster-wide rules only). incomplete says some rules
// could not be listed (the user may be able to do more).
type RuleResolver interface {
	RulesFor(ctx context.Context, u user.Info, namespace string) (resourceRules []ResourceRule, nonResourceRules []NonResourceRule, incomplete bool, err error)
}
