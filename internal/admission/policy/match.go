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

// Matcher matches requests against matchConstraints and matchResources.
type Matcher struct {
	Namespaces NamespaceGetter
}

var namespacesGR = schema.GroupResource{Resource: "namespaces"}

// Matches reports whether a falls under mr. A policy's matchConstraints
// must be set; a binding's nil matchResources, or one without
// resourceRules, matches everything the policy matched. A selector or
// namespace lookup error counts only for a request the rules match; it is
// the failure policy's to judge.
func (m *Matcher) Matches(ctx context.Context, a *admission.Attributes, mr *admissionregistrationv1.MatchResources) (bool, error) {
	if mr == nil {
		return true, nil
	}
	nsOK, nsErr := m.matchNamespace(ctx, a, mr.NamespaceSelector)
	if !nsOK && nsErr == nil {
		return false, nil
	}
	objOK, objErr := matchObjectSelector(a, mr.ObjectSelector)
	if !objOK && objErr == nil {
		return false, nil
	}
	for i := range mr.ExcludeResourceRules {
		if RuleMatches(a, &mr.ExcludeResourceRules[i]) {
			return false, nil
		}
	}
	// matchPolicy Equivalent would also try the request's equivalent
	// resources in other versions; kapi matches the request's own resource
	// only (every resource kapi serves has one group/version but Events
	// and HorizontalPodAutoscalers).
	matched := len(mr.ResourceRules) == 0
	for i := range mr.ResourceRules {
		if RuleMatches(a, &mr.ResourceRules[i]) {
			matched = true
			break
		}
	}
	if !matched {
		return false, nil
	}
	if nsErr != nil {
		return false, nsErr
	}
	if objErr != nil {
		return false, objErr
	}
	return true, nil
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
