package quota

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
)

// Evaluator measures one resource's usage.
type Evaluator interface {
	// GroupResource is the resource measured.
	GroupResource() schema.GroupResource
	// Handles reports whether a write may change usage.
	Handles(op admission.Operation, subresource string, obj, old runtime.Object) bool
	// MatchingResources keeps the quota resource names this evaluator
	// measures.
	MatchingResources(names []corev1.ResourceName) []corev1.ResourceName
	// MatchesScope reports whether obj is in the scope of sel.
	MatchesScope(sel corev1.ScopedResourceSelectorRequirement, obj runtime.Object) (bool, error)
	// Constraints checks that obj states what the quota's resources
	// require (pods must request cpu and memory a quota limits).
	Constraints(required []corev1.ResourceName, obj runtime.Object) error
	// Usage is what obj consumes.
	Usage(obj runtime.Object) (corev1.ResourceList, error)
}

// ListFunc lists the objects of a resource in a namespace.
type ListFunc func(namespace string) ([]runtime.Object, error)

// ScopeSelectors turns a quota's scopes and scope selector into one list
// of requirements.
func ScopeSelectors(q *corev1.ResourceQuota) []corev1.ScopedResourceSelectorRequirement {
	var out []corev1.ScopedResourceSelectorRequirement
	for _, s := range q.Spec.Scopes {
		out = append(out, corev1.ScopedResourceSelectorRequirement{ScopeName: s, Operator: corev1.ScopeSelectorOpExists})
	}
	if q.Spec.ScopeSelector != nil {
		out = append(out, q.Spec.ScopeSelector.MatchExpressions...)
	}
	return out
}

// Matches reports whether quota q limits obj: it names a resource e
// measures and obj is in every one of its scopes.
func Matches(e Evaluator, q *corev1.ResourceQuota, obj runtime.Object) (bool, error) {
	if len(e.MatchingResources(ResourceNames(q.Status.Hard))) == 0 {
		return false, nil
	}
	for _, sel := range ScopeSelectors(q) {
		ok, err := e.MatchesScope(sel, obj)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// MatchingScopes keeps the selectors obj is in.
func MatchingScopes(e Evaluator, obj runtime.Object, sels []corev1.ScopedResourceSelectorRequirement) ([]corev1.ScopedResourceSelectorRequirement, error) {
	var out []corev1.ScopedResourceSelectorRequirement
	for _, sel := range sels {
		ok, err := e.MatchesScope(sel, obj)
		if err != nil {
			return nil, fmt.Errorf("error on matching scope %v: %v", sel, err)
		}
		if ok {
			out = append(out, sel)
		}
	}
	return out, nil
}

// UsageStats sums the usage of the objects list returns that are in every
// scope of q, reporting zero for each of names nothing uses.
func UsageStats(e Evaluator, q *corev1.ResourceQuota, names []corev1.ResourceName, list ListFunc) (corev1.ResourceList, error) {
	used := corev1.ResourceList{}
	for _, n := range names {
		used[n] = resource.Quantity{Format: resource.DecimalSI}
	}
	items, err := list(q.Namespace)
	if err != nil {
		return used, fmt.Errorf("failed to list content: %v", err)
	}
	sels := ScopeSelectors(q)
	for _, item := range items {
		in := true
		for _, sel := range sels {
			ok, err := e.MatchesScope(sel, item)
			if err != nil {
				return used, err
			}
			in = in && ok
		}
		if !in {
			continue
		}
		u, err := e.Usage(item)
		if err != nil {
			return used, err
		}
		used = Add(used, u)
	}
	return used, nil
}

// CountResourceName is the object-count name of a resource:
// count/<resource> in the core group, count/<resource>.<group> elsewhere.
func CountResourceName(gr schema.GroupResource) corev1.ResourceName {
	if gr.Group == "" {
		return corev1.ResourceName("count/" + gr.Resource)
	}
	return corev1.ResourceName("count/" + gr.Resource + "." + gr.Group)
}

// ParseCountResourceName is the inverse of CountResourceName.
func ParseCountResourceName(name corev1.ResourceName) (schema.GroupResource, bool) {
	s, ok := strings.CutPrefix(string(name), "count/")
	if !ok || s == "" {
		return schema.GroupResource{}, false
	}
	return schema.ParseGroupResource(s), true
}

// objectCount counts objects of one resource, with the legacy alias some
// core resources have (configmaps, secrets, ...).
type objectCount struct {
	gr    schema.GroupResource
	names []corev1.ResourceName
}

// NewObjectCountEvaluator counts objects of gr under count/<gr> and, when
// given, alias.
func NewObjectCountEvaluator(gr schema.GroupResource, alias corev1.ResourceName) Evaluator {
	names := []corev1.ResourceName{CountResourceName(gr)}
	if alias != "" {
		names = append(names, alias)
	}
	return &objectCount{gr: gr, names: names}
}

func (o *objectCount) GroupResource() schema.GroupResource { return o.gr }

// Handles: only creates of the object itself change a count.
func (o *objectCount) Handles(op admission.Operation, subresource string, _, _ runtime.Object) bool {
	return op == admission.Create && subresource == ""
}

func (o *objectCount) MatchingResources(names []corev1.ResourceName) []corev1.ResourceName {
	return Intersection(names, o.names)
}

func (o *objectCount) MatchesScope(corev1.ScopedResourceSelectorRequirement, runtime.Object) (bool, error) {
	return false, nil
}

func (o *objectCount) Constraints([]corev1.ResourceName, runtime.Object) error { return nil }

func (o *objectCount) Usage(runtime.Object) (corev1.ResourceList, error) {
	out := corev1.ResourceList{}
	for _, n := range o.names {
		out[n] = *resource.NewQuantity(1, resource.DecimalSI)
	}
	return out, nil
}
