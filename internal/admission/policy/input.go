package policy

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// ToMap is obj as JSON-like data, with apiVersion and kind set to gvk (a
// built-in object in the server does not carry them). Unstructured
// objects are used as they are; callers must not modify the result.
func ToMap(obj runtime.Object, gvk schema.GroupVersionKind) (map[string]any, error) {
	if obj == nil {
		return nil, nil
	}
	if u, ok := obj.(runtime.Unstructured); ok {
		return u.UnstructuredContent(), nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("failed to prepare object variable for evaluation: %w", err)
	}
	if !gvk.Empty() {
		m["apiVersion"], m["kind"] = gvk.GroupVersion().String(), gvk.Kind
	}
	return m, nil
}

// Request is the request variable: the AdmissionRequest fields upstream
// declares for CEL, as upstream converts an AdmissionRequest to
// unstructured data (see RequestFor).
func Request(a *admission.Attributes) map[string]any {
	return RequestFor(a, Match{OK: true, Resource: a.Resource, Kind: a.Kind})
}

// RequestFor is Request for a request matched as m (matchPolicy
// Equivalent): kind and resource are m's, requestKind and
// requestResource the request's own. As upstream's conversion of the
// AdmissionRequest: name, namespace, subResource and requestSubResource,
// and the fields of userInfo, are absent when empty (omitempty); options
// is always present, null without an options object (a connect); uid,
// object and oldObject are not declared for CEL and left out.
func RequestFor(a *admission.Attributes, m Match) map[string]any {
	gvkOf := func(k schema.GroupVersionKind) map[string]any {
		return map[string]any{"group": k.Group, "version": k.Version, "kind": k.Kind}
	}
	gvrOf := func(r schema.GroupVersionResource) map[string]any {
		return map[string]any{"group": r.Group, "version": r.Version, "resource": r.Resource}
	}
	r := map[string]any{
		"kind":            gvkOf(m.Kind),
		"resource":        gvrOf(m.Resource),
		"requestKind":     gvkOf(a.Kind),
		"requestResource": gvrOf(a.Resource),
		"operation":       string(a.Operation),
		"dryRun":          a.DryRun,
		"options":         nil,
		"userInfo":        userInfoMap(a.UserInfo),
	}
	setIf := func(k, v string) {
		if v != "" {
			r[k] = v
		}
	}
	setIf("name", a.Name)
	setIf("namespace", a.Namespace)
	setIf("subResource", a.Subresource)
	setIf("requestSubResource", a.Subresource)
	if a.Options != nil {
		if m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(a.Options); err == nil {
			r["options"] = m
		}
	}
	return r
}

// userInfoMap is request.userInfo: empty fields are absent.
func userInfoMap(info user.Info) map[string]any {
	u := map[string]any{}
	if info == nil {
		return u
	}
	if n := info.GetName(); n != "" {
		u["username"] = n
	}
	if id := info.GetUID(); id != "" {
		u["uid"] = id
	}
	if g := info.GetGroups(); len(g) > 0 {
		l := make([]any, len(g))
		for i := range g {
			l[i] = g[i]
		}
		u["groups"] = l
	}
	if ex := info.GetExtra(); len(ex) > 0 {
		m := make(map[string]any, len(ex))
		for k, vs := range ex {
			if vs == nil {
				m[k] = nil // as upstream converts a nil list
				continue
			}
			l := make([]any, len(vs))
			for i := range vs {
				l[i] = vs[i]
			}
			m[k] = l
		}
		u["extra"] = m
	}
	return u
}

// NamespaceObject is the namespaceObject variable: the namespace without
// managedFields and ownerReferences, as upstream trims it.
func NamespaceObject(ns runtime.Object) (map[string]any, error) {
	if ns == nil {
		return nil, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ns)
	if err != nil {
		return nil, err
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
		delete(md, "ownerReferences")
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	return m, nil
}

// ObjectLabels are the labels of obj; nil for a nil object or one without
// metadata.
func ObjectLabels(obj runtime.Object) (map[string]string, bool) {
	if obj == nil {
		return nil, false
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return nil, false
	}
	return acc.GetLabels(), true
}
