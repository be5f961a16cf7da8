package discovery

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/endpoints/handlers/negotiation"
	"github.com/kapi-dev/kapi/internal/endpoints/handlers/responsewriters"
)

// aggregatedRestrictions accept only the aggregated discovery conversion
// (as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=v2). v2beta1 is gone
// upstream since 1.35 and clients no longer ask for it.
type aggregatedRestrictions struct{}

func (aggregatedRestrictions) AllowsMediaTypeTransform(_, _ string, target *schema.GroupVersionKind) bool {
	return isAggregatedGVK(target)
}

func (aggregatedRestrictions) AllowsStreamSchema(string) bool { return false }

func isAggregatedGVK(gvk *schema.GroupVersionKind) bool {
	return gvk != nil && *gvk == apidiscoveryv2.SchemeGroupVersion.WithKind("APIGroupDiscoveryList")
}

// wantsAggregated reports whether the Accept header prefers an aggregated
// document to anything else it lists.
func wantsAggregated(req *http.Request, ns runtime.NegotiatedSerializer) bool {
	mt, ok := negotiation.NegotiateMediaTypeOptions(req.Header.Get("Accept"), ns.SupportedMediaTypes(), aggregatedRestrictions{})
	return ok && isAggregatedGVK(mt.Convert)
}

// aggregatedDoc is a built document and its ETag.
type aggregatedDoc struct {
	list apidiscoveryv2.APIGroupDiscoveryList
	etag string
}

// serveAggregated writes the aggregated document of /api (core) or /apis,
// or 304 when the client already has it (If-None-Match).
func (m *Manager) serveAggregated(w http.ResponseWriter, req *http.Request, core bool) {
	doc, err := m.aggregatedDoc(core)
	if err != nil {
		m.opts.Logger.ErrorContext(req.Context(), "cannot build the aggregated discovery document", "err", err)
		m.writeError(w, req, err)
		return
	}
	quoted := strconv.Quote(doc.etag)
	w.Header().Set("ETag", quoted)
	w.Header().Set("Vary", "Accept")
	w.Header().Set("Cache-Control", "public")
	if req.Header.Get("If-None-Match") == quoted {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	// A shallow copy: encoding sets the kind on the top-level object.
	list := doc.list
	responsewriters.WriteObjectNegotiated(m.codecs, aggregatedRestrictions{}, apidiscoveryv2.SchemeGroupVersion, w, req, http.StatusOK, &list, true)
}

// aggregatedDoc returns the cached document, building it when a group
// version changed since.
func (m *Manager) aggregatedDoc(core bool) (*aggregatedDoc, error) {
	m.mu.RLock()
	doc := m.aggregated[core]
	m.mu.RUnlock()
	if doc != nil {
		return doc, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if doc := m.aggregated[core]; doc != nil {
		return doc, nil
	}
	doc = &aggregatedDoc{list: apidiscoveryv2.APIGroupDiscoveryList{Items: []apidiscoveryv2.APIGroupDiscovery{}}}
	for _, g := range m.mergedGroupsLocked() {
		if (g.name == "") != core {
			continue
		}
		group, err := m.discoveryLocked(g)
		if err != nil {
			return nil, err
		}
		doc.list.Items = append(doc.list.Items, group)
	}
	raw, err := json.Marshal(doc.list)
	if err != nil {
		return nil, err
	}
	doc.etag = fmt.Sprintf("%X", sha512.Sum512(raw))
	m.aggregated[core] = doc
	return doc, nil
}

func (g *groupEntry) discovery() (apidiscoveryv2.APIGroupDiscovery, error) {
	group := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g.name}}
	for _, v := range g.versions {
		resources, err := ToDiscoveryResources(v.resources)
		if err != nil {
			return group, fmt.Errorf("group version %s: %w", v.version.GroupVersion, err)
		}
		group.Versions = append(group.Versions, apidiscoveryv2.APIVersionDiscovery{
			Version:   v.version.Version,
			Resources: resources,
			Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
		})
	}
	return group, nil
}

// ToDiscoveryResources turns the APIResources of a group version (with
// "resource/subresource" entries) into aggregated discovery resources with
// their subresources nested. A subresource without its resource gets an
// empty parent, as upstream.
func ToDiscoveryResources(list []metav1.APIResource) ([]apidiscoveryv2.APIResourceDiscovery, error) {
	out := []apidiscoveryv2.APIResourceDiscovery{}
	index := map[string]int{}
	for _, r := range list {
		if strings.Contains(r.Name, "/") {
			continue
		}
		out = append(out, apidiscoveryv2.APIResourceDiscovery{
			Resource:         r.Name,
			Scope:            scopeOf(r),
			ResponseKind:     &metav1.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind},
			Verbs:            r.Verbs,
			ShortNames:       r.ShortNames,
			Categories:       r.Categories,
			SingularResource: r.SingularName,
		})
		index[r.Name] = len(out) - 1
	}
	for _, r := range list {
		parent, sub, ok := strings.Cut(r.Name, "/")
		if !ok {
			continue
		}
		i, exists := index[parent]
		if !exists {
			// Clients of v0.26.0-v0.26.3 crash on a nil responseKind.
			out = append(out, apidiscoveryv2.APIResourceDiscovery{Resource: parent, Scope: scopeOf(r), ResponseKind: &metav1.GroupVersionKind{}})
			i = len(out) - 1
			index[parent] = i
		}
		if out[i].Scope != scopeOf(r) {
			return nil, fmt.Errorf("resource %s (scope %s) and subresource %s (scope %s) differ in scope", parent, out[i].Scope, sub, scopeOf(r))
		}
		kind := &metav1.GroupVersionKind{}
		if r.Kind != "" {
			kind = &metav1.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
		}
		out[i].Subresources = append(out[i].Subresources, apidiscoveryv2.APISubresourceDiscovery{
			Subresource: sub, ResponseKind: kind, Verbs: r.Verbs,
		})
	}
	return out, nil
}

func scopeOf(r metav1.APIResource) apidiscoveryv2.ResourceScope {
	if r.Namespaced {
		return apidiscoveryv2.ScopeNamespace
	}
	return apidiscoveryv2.ScopeCluster
}
