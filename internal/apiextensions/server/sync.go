package server

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/internal/endpoints/discovery"
	"github.com/kapi-dev/kapi/internal/endpoints/handlers"
	"github.com/kapi-dev/kapi/internal/endpoints/openapi/routes"
)

// Sync makes the served set match the Source: new or changed Established
// CRDs are (re)built, unchanged ones (same uid and resourceVersion) kept,
// the rest dropped; then discovery and OpenAPI are updated.
func (h *Handler) Sync(ctx context.Context) error {
	list, err := h.c.Source.List(ctx)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	old := *h.crds.Load()
	next := map[schema.GroupResource]*servedCRD{}
	byGR := map[schema.GroupResource]*apiextv1.CustomResourceDefinition{}
	for _, crd := range list {
		if !established(crd) {
			continue
		}
		plural := crd.Status.AcceptedNames.Plural
		if plural == "" {
			plural = crd.Spec.Names.Plural
		}
		gr := schema.GroupResource{Group: crd.Spec.Group, Resource: plural}
		byGR[gr] = crd
		if prev := old[gr]; prev != nil && prev.uid == string(crd.UID) && prev.resourceVersion == crd.ResourceVersion {
			next[gr] = prev
			continue
		}
		s, err := h.buildCRD(crd)
		if err != nil {
			h.logger.Error("serving custom resource definition", "name", crd.Name, "err", err)
			continue
		}
		next[gr] = s
	}
	h.crds.Store(&next)
	// Requests that found the old snapshot may still be using a replaced
	// store: it is released after them.
	for gr, prev := range old {
		if next[gr] != prev {
			prev.users.retire()
		}
	}
	h.publish(next, byGR)
	h.synced.Store(true)
	return nil
}

func established(crd *apiextv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextv1.Established {
			return c.Status == apiextv1.ConditionTrue
		}
	}
	return false
}

// publish gives discovery and OpenAPI every served group version (the
// union of the CRDs sharing it) and removes those no longer served.
func (h *Handler) publish(served map[schema.GroupResource]*servedCRD, crds map[schema.GroupResource]*apiextv1.CustomResourceDefinition) {
	type gvContent struct {
		resources []metav1.APIResource
		routes    []routes.Resource
		v2        map[string]spec.Schema
		v3        map[string]*spec.Schema
	}
	content := map[schema.GroupVersion]*gvContent{}
	grs := slices.SortedFunc(maps.Keys(served), func(a, b schema.GroupResource) int { return strings.Compare(a.String(), b.String()) })
	for _, gr := range grs {
		s, crd := served[gr], crds[gr]
		for _, v := range crd.Spec.Versions {
			sv := s.versions[v.Name]
			if sv == nil {
				continue
			}
			gv := schema.GroupVersion{Group: s.group, Version: v.Name}
			c := content[gv]
			if c == nil {
				c = &gvContent{v2: map[string]spec.Schema{}, v3: map[string]*spec.Schema{}}
				content[gv] = c
			}
			c.resources = append(c.resources, sv.resources...)
			h.addOpenAPI(c.v2, c.v3, &c.routes, gv, crd, v, sv)
		}
	}
	lists := map[schema.GroupVersion]http.Handler{}
	for gv, c := range content {
		lists[gv] = discovery.NewAPIVersionHandler(h.metaCodecs, h.metaScheme, gv, c.resources)
		if h.c.Discovery != nil {
			h.c.Discovery.AddGroupVersion(gv.Group, metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version}, c.resources)
		}
		if h.c.OpenAPI != nil {
			h.c.OpenAPI.UpdateGroupVersion(gv, c.routes, c.v2, c.v3)
		}
		h.published[gv] = true
	}
	h.versionLists.Store(&lists)
	for gv := range h.published {
		if content[gv] != nil {
			continue
		}
		if h.c.Discovery != nil {
			h.c.Discovery.RemoveGroupVersion(gv)
		}
		if h.c.OpenAPI != nil {
			h.c.OpenAPI.RemoveGroupVersion(gv)
		}
		delete(h.published, gv)
	}
}

// DefinitionName is upstream's OpenAPI name of a custom resource kind:
// the reversed group, the version and the kind (com.example.v1.Widget).
func DefinitionName(gv schema.GroupVersion, kind string) string {
	parts := strings.Split(gv.Group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + gv.Version + "." + kind
}

func (h *Handler) addOpenAPI(v2 map[string]spec.Schema, v3 map[string]*spec.Schema, rs *[]routes.Resource, gv schema.GroupVersion,
	crd *apiextv1.CustomResourceDefinition, v apiextv1.CustomResourceDefinitionVersion, sv *servedVersion) {
	names := crd.Spec.Names
	listKind := names.ListKind
	if listKind == "" {
		listKind = names.Kind + "List"
	}
	objName, listName := DefinitionName(gv, names.Kind), DefinitionName(gv, listKind)
	vs, err := h.compile(v)
	var obj *spec.Schema
	if err == nil {
		obj, err = vs.OpenAPI()
	}
	if err != nil {
		h.logger.Warn("custom resource left out of OpenAPI", "crd", crd.Name, "version", v.Name, "err", err)
		return
	}
	obj.AddExtension("x-kubernetes-group-version-kind", []any{map[string]any{"group": gv.Group, "version": gv.Version, "kind": names.Kind}})
	list := func(prefix string) *spec.Schema {
		l := &spec.Schema{}
		l.Type = spec.StringOrArray{"object"}
		l.Required = []string{"items"}
		l.Properties = map[string]spec.Schema{
			"apiVersion": *spec.StringProperty(),
			"kind":       *spec.StringProperty(),
			"items":      *spec.ArrayProperty(spec.RefSchema(prefix + objName)),
		}
		l.AddExtension("x-kubernetes-group-version-kind", []any{map[string]any{"group": gv.Group, "version": gv.Version, "kind": listKind}})
		return l
	}
	v2[objName], v2[listName] = *obj, *list("#/definitions/")
	v3[objName], v3[listName] = obj, list("#/components/schemas/")
	for _, r := range sv.resources {
		rr := routes.Resource{GroupVersion: gv, APIResource: r, Kind: gv.WithKind(names.Kind), Object: objName, List: listName,
			PatchTypes: handlers.PatchTypes(false)}
		if strings.HasSuffix(r.Name, "/scale") {
			rr.Kind = schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
			rr.Object, rr.List = "io.k8s.api.autoscaling.v1.Scale", ""
		}
		*rs = append(*rs, rr)
	}
}
