package discovery

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/endpoints/handlers/negotiation"
	"github.com/kapi-dev/kapi/internal/endpoints/handlers/responsewriters"
)

// serveAPIVersions writes /api: the versions of the core group, in the
// version-less form upstream has always used there.
func (m *Manager) serveAPIVersions(w http.ResponseWriter, req *http.Request) {
	versions := &metav1.APIVersions{
		Versions: []string{},
		ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{
			{ClientCIDR: "0.0.0.0/0", ServerAddress: m.serverAddress(req)},
		},
	}
	m.mu.RLock()
	if g := m.findLocked(""); g != nil {
		for _, v := range g.versions {
			versions.Versions = append(versions.Versions, v.version.Version)
		}
	}
	m.mu.RUnlock()
	m.write(w, req, kindOnlySerializer{NegotiatedSerializer: m.codecs, typer: m.scheme}, versions)
}

// serveGroupList writes /apis: every named group, in registration order.
func (m *Manager) serveGroupList(w http.ResponseWriter, req *http.Request) {
	list := &metav1.APIGroupList{Groups: []metav1.APIGroup{}}
	m.mu.RLock()
	for _, g := range m.mergedGroupsLocked() {
		if g.name != "" {
			list.Groups = append(list.Groups, g.apiGroup())
		}
	}
	m.mu.RUnlock()
	m.write(w, req, m.codecs, list)
}

// serveGroup writes /apis/<group>.
func (m *Manager) serveGroup(w http.ResponseWriter, req *http.Request, name string) {
	m.mu.RLock()
	var group metav1.APIGroup
	found := false
	for _, g := range m.mergedGroupsLocked() {
		if g.name == name {
			group, found = g.apiGroup(), true
		}
	}
	m.mu.RUnlock()
	if !found || name == "" {
		m.writeError(w, req, notFound())
		return
	}
	m.write(w, req, m.codecs, &group)
}

func (m *Manager) write(w http.ResponseWriter, req *http.Request, s runtime.NegotiatedSerializer, obj runtime.Object) {
	responsewriters.WriteObjectNegotiated(s, negotiation.NoTransform{}, schema.GroupVersion{}, w, req, http.StatusOK, obj, false)
}

// apiGroup is the legacy document of a group; its first version is the
// preferred one.
func (g *groupEntry) apiGroup() metav1.APIGroup {
	group := metav1.APIGroup{Name: g.name}
	for _, v := range g.versions {
		group.Versions = append(group.Versions, v.version)
	}
	if len(g.versions) > 0 {
		group.PreferredVersion = g.versions[0].version
	}
	return group
}
