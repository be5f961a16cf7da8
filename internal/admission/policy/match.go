package policy

import (
	"context"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
)

// NamespaceGetter finds a namespace by name (a lister, with a live read as
// fallback); an error is a configuration error of the policy.
type NamespaceGetter func(ctx context.Context, name string) (*corev1.Namespace, error)

// EquivalentMapper knows which resources are served from the same
// storage in other groups or versions (matchPolicy Equivalent).
type EquivalentMapper interface {
	EquivalentResources(gvr schema.GroupVersionResource, subresource string) []schema.GroupVersionResource
	KindFor(gvr schema.GroupVersionResource, subresource string) (schema.GroupVersionKind, bool)
}

// Matcher matches requests against matchConstraints and matchResources.
type Matcher struct {
	Namespaces NamespaceGetter
	// Equivalents finds equivalent resources for matchPolicy Equivalent;
	// nil matches the request's own resource only.
	Equivalents EquivalentMapper
}

// Match is the outcome of MatchFor: whether the request matched, and as
// which resource and kind (an equivalent one under matchPolicy
// Equivalent, the request's own otherwise).
type Match struct {
	OK       bool
	Resource schema.GroupVersionResource
	Kind     schema.GroupVersionKind
}

var namespacesGR = schema.GroupResource{Resource: "namespaces"}

// Matches reports whether a falls under mr (see MatchFor).
func (m *Matcher) Matches(ctx context.Context, a *admission.Attributes, mr *admissionregistrationv1.MatchResources) (bool, error) {
	r, err := m.MatchFor(ctx, a, mr)
	return r.OK, err
}

// MatchFor reports whether a falls under mr, and as which resource. A
// policy's matchConstraints must be set; a binding's nil matchResources,
// or one without resourceRules, matches everything the policy matched. A
// selector or namespace lookup error counts only for a request the rules
// match; it is the failure policy's to judge.
func (m *Matcher) MatchFor(ctx context.Context, a *admission.Attributes, mr *admissionregistrationv1.MatchResources) (Match, error) {
	own := Match{OK: true, Resource: a.Resource, Kind: a.Kind}
	if mr == nil {
		return own, nil
	}
	nsOK, nsErr := m.matchNamespace(ctx, a, mr.NamespaceSelector)
	if !nsOK && nsErr == nil {
		return Match{}, nil
	}
	objOK, objErr := matchObjectSelector(a, mr.ObjectSelector)
	if !objOK && objErr == nil {
		return Match{}, nil
	}
	if ex, err := m.matchRules(a, mr.ExcludeResourceRules, mr.MatchPolicy); ex.OK || err != nil {
		return Match{}, err
	}
	matched := own
	if len(mr.ResourceRules) > 0 {
		var err error
		if matched, err = m.matchRules(a, mr.ResourceRules, mr.MatchPolicy); err != nil || !matched.OK {
			return Match{}, err
		}
	}
	if nsErr != nil {
		return Match{}, nsErr
	}
	if objErr != nil {
		return Match{}, objErr
	}
	return matched, nil
}

// matchRules is upstream's order: the request's own resource against
// every rule (resourceNames included), then under Equivalent each rule
// against the equivalent resources (resourceNames not checked, as
// upstream).
func (m *Matcher) matchRules(a *admission.Attributes, rules []admissionregistrationv1.NamedRuleWithOperations, policy *admissionregistrationv1.MatchPolicyType) (Match, error) {
	for i := range rules {
		if RuleMatches(a, &rules[i]) {
			return Match{OK: true, Resource: a.Resource, Kind: a.Kind}, nil
		}
	}
	if policy == nil || *policy != admissionregistrationv1.Equivalent || m.Equivalents == nil {
		return Match{}, nil
	}
	for i := range rules {
		r := rules[i]
		r.ResourceNames = nil
		for _, eq := range m.Equivalents.EquivalentResources(a.Resource, a.Subresource) {
			if eq == a.Resource {
				continue
			}
			at := *a
			at.Resource = eq
			if !RuleMatches(&at, &r) {
				continue
			}
			kind, ok := m.Equivalents.KindFor(eq, a.Subresource)
			if !ok {
				return Match{}, fmt.Errorf("unable to convert to %v: unknown kind", eq)
			}
			return Match{OK: true, Resource: eq, Kind: kind}, nil
		}
	}
	return Match{}, nil
}

func (m *Matcher) matchNamespace(ctx context.Context, a *admission.Attributes, sel *metav1.LabelSelector) (bool, error) {
	if sel == nil {
		return true, nil
	}
	selector, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, err
	}
	if selector.Empty() {
		return true, nil
	}
	if a.Resource.GroupResource() == namespacesGR && a.Subresource == "" && a.Resource.Version == "v1" {
		// a namespace is matched by its own labels
		obj := a.Object
		if obj == nil {
			obj = a.OldObject
		}
		l, _ := ObjectLabels(obj)
		return selector.Matches(labels.Set(l)), nil
	}
	if a.Namespace == "" {
		// cluster-scoped objects are never excluded by a namespace selector
		return true, nil
	}
	if m.Namespaces == nil {
		return false, fmt.Errorf("namespace %q: no namespace lister", a.Namespace)
	}
	ns, err := m.Namespaces(ctx, a.Namespace)
	if err != nil {
		return false, err
	}
	return selector.Matches(labels.Set(ns.Labels)), nil
}

func matchObjectSelector(a *admission.Attributes, sel *metav1.LabelSelector) (bool, error) {
	if sel == nil {
		return true, nil
	}
	selector, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, err
	}
	if selector.Empty() {
		return true, nil
	}
	for _, obj := range []runtime.Object{a.Object, a.OldObject} {
		if l, ok := ObjectLabels(obj); ok && selector.Matches(labels.Set(l)) {
			return true, nil
		}
	}
	return false, nil
}

// RuleMatches reports whether a falls under r: operation, group, version,
// resource (with "resource/subresource", "*" for every resource and "*/*"
// for every subresource too), scope and resourceNames.
func RuleMatches(a *admission.Attributes, r *admissionregistrationv1.NamedRuleWithOperations) bool {
	if !matchOp(r.Operations, a.Operation) ||
		!matchAny(r.APIGroups, a.Resource.Group) ||
		!matchAny(r.APIVersions, a.Resource.Version) ||
		!matchResource(r.Resources, a.Resource.Resource, a.Subresource) ||
		!matchScope(r.Scope, a) {
		return false
	}
	if len(r.ResourceNames) == 0 {
		return true
	}
	for _, n := range r.ResourceNames {
		if n == a.Name {
			return true
		}
	}
	return false
}

func matchOp(ops []admissionregistrationv1.OperationType, op admission.Operation) bool {
	for _, o := range ops {
		if o == admissionregistrationv1.OperationAll || string(o) == string(op) {
			return true
		}
	}
	return false
}

func matchAny(list []string, v string) bool {
	for _, x := range list {
		if x == "*" || x == v {
			return true
		}
	}
	return false
}

func matchResource(list []string, res, sub string) bool {
	for _, r := range list {
		rr, rs, _ := strings.Cut(r, "/")
		if (rr == "*" || rr == res) && (rs == "*" || rs == sub) {
			return true
		}
	}
	return false
}

func matchScope(scope *admissionregistrationv1.ScopeType, a *admission.Attributes) bool {
	if scope == nil || *scope == admissionregistrationv1.AllScopes {
		return true
	}
	isNamespace := a.Resource.GroupResource() == namespacesGR
	switch *scope {
	case admissionregistrationv1.NamespacedScope:
		return !isNamespace && a.Namespace != ""
	case admissionregistrationv1.ClusterScope:
		return isNamespace || a.Namespace == ""
	}
	return false
}
