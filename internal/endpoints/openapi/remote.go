package openapi

import (
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"k8s.io/kube-openapi/pkg/aggregator"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// RemoteV2 is what an aggregated server (a remote APIService) adds to
// the v2 document: its own v2 document, already filtered to the paths of
// the APIService's group version.
type RemoteV2 struct {
	// Name is the APIService's.
	Name                           string
	Group                          string
	GroupPriority, VersionPriority int32
	// JSON is the document; Version changes when it does (its ETag).
	JSON    []byte
	Version string
}

// SetRemoteV2 adds or replaces the part of the v2 document an aggregated
// server describes; the document is merged again on its next request.
func (s *Service) SetRemoteV2(r RemoteV2) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.remoteV2 == nil {
		s.remoteV2 = map[string]RemoteV2{}
	}
	if old, ok := s.remoteV2[r.Name]; ok && old.Version == r.Version && old.GroupPriority == r.GroupPriority && old.VersionPriority == r.VersionPriority {
		return
	}
	s.remoteV2[r.Name] = r
	s.v2.Store(s.newLazyV2Locked(s.v2.Load()))
}

// RemoveRemoteV2 removes an aggregated server's part of the v2 document.
func (s *Service) RemoveRemoteV2(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.remoteV2[name]; !ok {
		return
	}
	delete(s.remoteV2, name)
	s.v2.Store(s.newLazyV2Locked(s.v2.Load()))
}

// sortedRemoteV2Locked lists the remote documents in the order upstream's
// aggregator merges them: group priority (the highest of the group's
// APIServices) descending, versionPriority descending within a group,
// then name.
func (s *Service) sortedRemoteV2Locked() []RemoteV2 {
	groupPrio := map[string]int32{}
	for _, r := range s.remoteV2 {
		groupPrio[r.Group] = max(groupPrio[r.Group], r.GroupPriority)
	}
	out := slices.Collect(maps.Values(s.remoteV2))
	slices.SortFunc(out, func(a, b RemoteV2) int {
		pa, pb := groupPrio[a.Group], groupPrio[b.Group]
		if a.Group == b.Group {
			pa, pb = a.VersionPriority, b.VersionPriority
		}
		return cmp.Or(cmp.Compare(pb, pa), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// mergeRemoteV2 merges the remote documents into doc as upstream does
// (kube-openapi's merge: a path already there is kept, a conflicting
// definition or parameter of the remote one is renamed). A document that
// does not parse or merge is left out; the errors say which.
func mergeRemoteV2(doc *spec.Swagger, remotes []RemoteV2) error {
	var errs []error
	for _, r := range remotes {
		var remote spec.Swagger
		if err := remote.UnmarshalJSON(r.JSON); err != nil {
			errs = append(errs, fmt.Errorf("OpenAPI v2 of APIService %s: %w", r.Name, err))
			continue
		}
		if err := aggregator.MergeSpecsIgnorePathConflictRenamingDefinitionsAndParameters(doc, &remote); err != nil {
			errs = append(errs, fmt.Errorf("merging the OpenAPI v2 of APIService %s: %w", r.Name, err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%v", errs)
	}
	return nil
}

// FilterV2 keeps the paths of doc under /apis/<group>/<version>/ and the
// definitions they use, as upstream keeps of an aggregated server's
// document.
func FilterV2(doc *spec.Swagger, group, version string) *spec.Swagger {
	return aggregator.FilterSpecByPathsWithoutSideEffects(doc, []string{"/apis/" + group + "/" + version + "/"})
}

// remoteV3 is an aggregated server's v3 documents: the keys and URLs of
// its index, served by handler (its proxy).
type remoteV3 struct {
	paths   map[string]string
	handler http.Handler
}

// SetRemoteV3 lists an aggregated server's v3 documents (keys and
// serverRelativeURLs of its index) in the index, where no local document
// has the key, and serves them through h, as upstream's aggregator
// proxies them. The service keeps paths.
func (s *Service) SetRemoteV3(name string, paths map[string]string, h http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.remoteV3 == nil {
		s.remoteV3 = map[string]remoteV3{}
	}
	s.remoteV3[name] = remoteV3{paths: paths, handler: h}
	s.republishV3Locked()
}

// RemoveRemoteV3 takes an aggregated server's v3 documents out.
func (s *Service) RemoveRemoteV3(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.remoteV3[name]; !ok {
		return
	}
	delete(s.remoteV3, name)
	s.republishV3Locked()
}

// republishV3Locked rebuilds the index, keeping every local document.
func (s *Service) republishV3Locked() {
	old := s.v3.Load()
	s.v3.Store(s.newV3DocsLocked(&v3Docs{docs: old.docs}))
}

// remoteV3Locked is the remote part of the index and the handler of
// each remote key, leaving out keys docs has.
func (s *Service) remoteV3Locked(docs map[string]*lazyDoc) (map[string]string, map[string]http.Handler) {
	urls, handlers := map[string]string{}, map[string]http.Handler{}
	names := slices.Sorted(maps.Keys(s.remoteV3))
	for _, name := range names {
		r := s.remoteV3[name]
		for key, u := range r.paths {
			if _, local := docs[key]; local {
				continue
			}
			if _, taken := handlers[key]; taken {
				continue
			}
			urls[key], handlers[key] = u, r.handler
		}
	}
	return urls, handlers
}
