package discovery

import (
	"cmp"
	"slices"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// RemoteVersion is a group version served by an aggregated API server
// (a remote APIService), with the APIService's priorities and the
// version's aggregated discovery entry as fetched from that server.
type RemoteVersion struct {
	GroupPriority, VersionPriority int32
	// Discovery is the version's entry, Freshness set by the caller
	// (Stale when the last fetch failed).
	Discovery apidiscoveryv2.APIVersionDiscovery
}

// SetLocalPriority tells the manager the groupPriorityMinimum of the
// local groups, so that remote groups are listed where upstream's
// aggregator lists them. Without it remote groups follow every local one.
func (m *Manager) SetLocalPriority(f func(group string) int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.localPriority = f
	clear(m.aggregated)
}

// SetRemoteGroupVersion adds or replaces a remote group version. The
// manager keeps v: the caller must not change it after.
func (m *Manager) SetRemoteGroupVersion(gv schema.GroupVersion, v RemoteVersion) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.remote == nil {
		m.remote = map[schema.GroupVersion]RemoteVersion{}
	}
	v.Discovery.Version = gv.Version
	m.remote[gv] = v
	clear(m.aggregated)
}

// RemoveRemoteGroupVersion removes a remote group version.
func (m *Manager) RemoveRemoteGroupVersion(gv schema.GroupVersion) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.remote[gv]; !ok {
		return
	}
	delete(m.remote, gv)
	clear(m.aggregated)
}

// HasRemoteGroup reports whether any version of group is remote.
func (m *Manager) HasRemoteGroup(group string) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for gv := range m.remote {
		if gv.Group == group {
			return true
		}
	}
	return false
}

// mergedGroup is a group as discovery lists it: local versions (as
// installed) then remote ones.
type mergedGroup struct {
	name   string
	local  *groupEntry
	remote []schema.GroupVersion // in upstream's version order
}

// mergedGroupsLocked lists the local groups in registration order with
// the remote groups among them, ordered as upstream's aggregator orders
// APIServices: groupPriorityMinimum descending, then group name; the
// versions of a remote group by versionPriority descending, then
// Kubernetes version order. A remote version of a local group follows
// the local versions.
func (m *Manager) mergedGroupsLocked() []mergedGroup {
	byGroup := map[string][]schema.GroupVersion{}
	for gv := range m.remote {
		byGroup[gv.Group] = append(byGroup[gv.Group], gv)
	}
	for g, gvs := range byGroup {
		slices.SortFunc(gvs, func(a, b schema.GroupVersion) int {
			return cmp.Or(cmp.Compare(m.remote[b].VersionPriority, m.remote[a].VersionPriority),
				-version.CompareKubeAwareVersionStrings(a.Version, b.Version))
		})
		byGroup[g] = gvs
	}
	out := make([]mergedGroup, 0, len(m.groups)+len(byGroup))
	for _, g := range m.groups {
		out = append(out, mergedGroup{name: g.name, local: g, remote: byGroup[g.name]})
		delete(byGroup, g.name)
	}
	remoteOnly := make([]mergedGroup, 0, len(byGroup))
	for g, gvs := range byGroup {
		remoteOnly = append(remoteOnly, mergedGroup{name: g, remote: gvs})
	}
	slices.SortFunc(remoteOnly, func(a, b mergedGroup) int { return m.compareGroupsLocked(a, b) })
	for _, r := range remoteOnly {
		// Before the first group that sorts after it; local groups are
		// in priority order already.
		i := slices.IndexFunc(out, func(g mergedGroup) bool { return g.name != "" && m.compareGroupsLocked(r, g) < 0 })
		if i < 0 {
			i = len(out)
		}
		out = slices.Insert(out, i, r)
	}
	return out
}

// compareGroupsLocked orders groups by priority descending, then name.
func (m *Manager) compareGroupsLocked(a, b mergedGroup) int {
	return cmp.Or(cmp.Compare(m.groupPriorityLocked(b), m.groupPriorityLocked(a)), cmp.Compare(a.name, b.name))
}

func (m *Manager) groupPriorityLocked(g mergedGroup) int32 {
	if g.local != nil {
		if m.localPriority == nil {
			return 1<<31 - 1
		}
		return m.localPriority(g.name)
	}
	var p int32
	for _, gv := range g.remote {
		p = max(p, m.remote[gv].GroupPriority)
	}
	return p
}

// apiGroup is the legacy document of a merged group; its first version
// is the preferred one.
func (g mergedGroup) apiGroup() metav1.APIGroup {
	var group metav1.APIGroup
	if g.local != nil {
		group = g.local.apiGroup()
	}
	group.Name = g.name
	for _, gv := range g.remote {
		v := metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version}
		group.Versions = append(group.Versions, v)
	}
	if len(group.Versions) > 0 {
		group.PreferredVersion = group.Versions[0]
	}
	return group
}

// discovery is the aggregated document of a merged group.
func (m *Manager) discoveryLocked(g mergedGroup) (apidiscoveryv2.APIGroupDiscovery, error) {
	group := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g.name}}
	if g.local != nil {
		var err error
		if group, err = g.local.discovery(); err != nil {
			return group, err
		}
	}
	for _, gv := range g.remote {
		group.Versions = append(group.Versions, m.remote[gv].Discovery)
	}
	return group, nil
}
