package webhook

import (
	"context"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
)

var namespacesResource = corev1.SchemeGroupVersion.WithResource("namespaces")

// ruleMatches is upstream's rule matcher: operation, group, version,
// resource/subresource (with "*" and "*/*") and scope all match.
func ruleMatches(r *admissionregistrationv1.RuleWithOperations, a *admission.Attributes, gvr schema.GroupVersionResource) bool {
	return opMatches(r.Operations, a.Operation) &&
		anyOrContains(r.APIGroups, gvr.Group) &&
		anyOrContains(r.APIVersions, gvr.Version) &&
		resourceMatches(r.Resources, gvr.Resource, a.Subresource) &&
		scopeMatches(r.Scope, a, gvr)
}

func opMatches(ops []admissionregistrationv1.OperationType, op admission.Operation) bool {
	for _, o := range ops {
		if o == admissionregistrationv1.OperationAll || string(o) == string(op) {
			return true
		}
	}
	return false
}

func anyOrContains(list []string, s string) bool {
	for _, v := range list {
		if v == "*" || v == s {
			return true
		}
	}
	return false
}

// resourceMatches: "pods" is the resource itself, "pods/status" one
// subresource, "pods/*" the resource and all its subresources, "*" every
// resource, "*/*" everything.
func resourceMatches(rules []string, resource, sub string) bool {
	for _, r := range rules {
		res, rsub, _ := strings.Cut(r, "/")
		if (res == "*" || res == resource) && (rsub == "*" || rsub == sub) {
			return true
		}
	}
	return false
}

// scopeMatches: a namespace object is cluster-scoped although admission
// gives it its own name as namespace.
func scopeMatches(scope *admissionregistrationv1.ScopeType, a *admission.Attributes, gvr schema.GroupVersionResource) bool {
	if scope == nil || *scope == admissionregistrationv1.AllScopes {
		return true
	}
	isNamespace := gvr.GroupResource() == namespacesResource.GroupResource()
	switch *scope {
	case admissionregistrationv1.NamespacedScope:
		return !isNamespace && a.Namespace != ""
	case admissionregistrationv1.ClusterScope:
		return isNamespace || a.Namespace == ""
	}
	return false
}

// invocation is a webhook matched to a request: the resource and kind
// the webhook is sent, which differ from the request's when it matched
// an equivalent version.
type invocation struct {
	hook     *hook
	resource schema.GroupVersionResource
	kind     schema.GroupVersionKind
}

// matchRules finds the resource the webhook is called for: the request's
// own if a rule matches it, else under matchPolicy Equivalent the first
// equivalent resource a rule matches.
func (d *dispatcher) matchRules(h *hook, a *admission.Attributes) (invocation, bool) {
	for i := range h.rules {
		if ruleMatches(&h.rules[i], a, a.Resource) {
			return invocation{hook: h, resource: a.Resource, kind: a.Kind}, true
		}
	}
	if h.matchPolicy != admissionregistrationv1.Equivalent || d.opts.Mapper == nil {
		return invocation{}, false
	}
	for _, eq := range d.opts.Mapper.EquivalentResources(a.Resource, a.Subresource) {
		if eq == a.Resource {
			continue
		}
		for i := range h.rules {
			if ruleMatches(&h.rules[i], a, eq) {
				kind, ok := d.opts.Mapper.KindFor(eq, a.Subresource)
				if !ok {
					kind = a.Kind
				}
				return invocation{hook: h, resource: eq, kind: kind}, true
			}
		}
	}
	return invocation{}, false
}

// shouldCall is upstream's order: namespace selector, object selector,
// rules; selector errors only count when the rules match.
func (d *dispatcher) shouldCall(ctx context.Context, h *hook, a *admission.Attributes) (invocation, bool, error) {
	nsMatch, nsErr := d.namespaceMatches(ctx, h, a)
	if !nsMatch && nsErr == nil {
		return invocation{}, false, nil
	}
	objMatch, objErr := objectMatches(h, a)
	if !objMatch && objErr == nil {
		return invocation{}, false, nil
	}
	inv, ok := d.matchRules(h, a)
	if !ok {
		return invocation{}, false, nil
	}
	if nsErr != nil {
		return invocation{}, false, nsErr
	}
	if objErr != nil {
		return invocation{}, false, objErr
	}
	return inv, true, nil
}

// namespaceMatches applies namespaceSelector: cluster-scoped objects
// always match; a namespace is matched by its own labels.
func (d *dispatcher) namespaceMatches(ctx context.Context, h *hook, a *admission.Attributes) (bool, error) {
	if h.namespaceSelector.Empty() {
		return true, nil
	}
	isNamespace := a.Resource.GroupResource() == namespacesResource.GroupResource()
	if a.Namespace == "" && !isNamespace {
		return true, nil
	}
	var nsLabels map[string]string
	if isNamespace && a.Subresource == "" {
		obj := a.Object
		if a.Operation == admission.Delete || obj == nil {
			obj = a.OldObject
		}
		if obj != nil {
			if acc, err := meta.Accessor(obj); err == nil {
				nsLabels = acc.GetLabels()
			}
		}
	} else {
		ns, err := d.namespace(ctx, a.Namespace)
		if err != nil {
			return false, err
		}
		nsLabels = ns.Labels
	}
	return h.namespaceSelector.Matches(labels.Set(nsLabels)), nil
}

// namespace reads a namespace from the lister, falling back to a live
// read for one created too recently for the informer to know.
func (d *dispatcher) namespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	if d.opts.Namespaces != nil {
		ns, err := d.opts.Namespaces.Get(name)
		if err == nil {
			return ns, nil
		}
		if !apierrors.IsNotFound(err) {
			return nil, apierrors.NewInternalError(err)
		}
	}
	if d.opts.GetNamespace != nil {
		ns, err := d.opts.GetNamespace(ctx, name)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		return ns, nil
	}
	return nil, apierrors.NewInternalError(apierrors.NewNotFound(namespacesResource.GroupResource(), name))
}

// objectMatches applies objectSelector to the new and the old object: a
// match on either calls the webhook.
func objectMatches(h *hook, a *admission.Attributes) (bool, error) {
	if h.objectSelector.Empty() {
		return true, nil
	}
	return labelsMatch(h.objectSelector, a.Object) || labelsMatch(h.objectSelector, a.OldObject), nil
}

func labelsMatch(sel labels.Selector, obj runtime.Object) bool {
	if obj == nil {
		return false
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	return sel.Matches(labels.Set(acc.GetLabels()))
}
