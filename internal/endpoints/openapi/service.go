// Package openapi serves the OpenAPI documents of the server: /openapi/v2
// (JSON and protobuf) with every group version, and /openapi/v3 with an
// index and one document per group version. Documents are built from the
// installed resources (routes) and their Go types (definitions), encoded
// once, and served with ETags and cache headers; custom resources replace
// their group versions' documents through the same service.
package openapi

import (
	"cmp"
	"errors"
	"maps"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/definitions"
	"github.com/kapi-dev/kapi/internal/endpoints/openapi/routes"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Mux is where the service installs its handlers.
type Mux interface {
	Handle(path string, h http.Handler)
	HandlePrefix(prefix string, h http.Handler)
}

// Info names the documents (info.title and info.version).
type Info struct {
	Title, Version string
}

// Service holds the OpenAPI documents of one server.
//
// Requests read immutable snapshots through atomic pointers and never
// wait for a change; changes are serialised by mu and replace what they
// touch: a group version's v3 document and the index at once, the v2
// document lazily on its next request.
type Service struct {
	scheme      *runtime.Scheme
	info        Info
	definitions *definitions.Builder
	// now stamps Last-Modified and Expires; tests replace it.
	now func() time.Time

	mu sync.Mutex
	// groups are the built-in group versions, built by Build.
	groups map[schema.GroupVersion]installed
	// parts are the contents of every document, by v3 key.
	parts map[string]*part

	v2 atomic.Pointer[lazyV2]
	v3 atomic.Pointer[v3Docs]
}

// installed is what AddGroupVersion was told about a group version.
type installed struct {
	resources []metav1.APIResource
	storage   map[string]rest.Storage
}

// NewService returns a service describing resources whose objects are
// registered in scheme. It serves empty documents until Build.
func NewService(scheme *runtime.Scheme, info Info) *Service {
	s := &Service{
		scheme:      scheme,
		info:        info,
		definitions: definitions.NewBuilder(scheme),
		now:         time.Now,
		groups:      map[schema.GroupVersion]installed{},
		parts:       map[string]*part{},
	}
	s.v3.Store(s.newV3Docs(map[string]*encodedDoc{}))
	s.v2.Store(s.newLazyV2Locked(nil))
	return s
}

// AddGroupVersion adds the resources of gv, as the group version's
// installer announced them in discovery, with their storage (keyed
// "resource" and "resource/sub"), which says what else they serve
// (connect methods, patch types). The documents include it from the next
// Build.
func (s *Service) AddGroupVersion(gv schema.GroupVersion, resources []metav1.APIResource, storage map[string]rest.Storage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.groups[gv] = installed{resources: resources, storage: storage}
}

// Build builds and encodes every document; call it once the built-in
// group versions are added. A resource whose kind the scheme does not
// know is left out and reported; everything else is still served.
func (s *Service) Build() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	gvs := slices.SortedFunc(maps.Keys(s.groups), func(a, b schema.GroupVersion) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Version, b.Version))
	})
	core := false
	var groups []string
	for _, gv := range gvs {
		in := s.groups[gv]
		resources, roots, err := resourcesOf(s.scheme, gv, in.resources, in.storage)
		if err != nil {
			errs = append(errs, err)
		}
		s.parts[keyOf(gv)] = s.groupVersionPart(gv, resources, roots, nil, nil)
		if gv.Group == "" {
			core = true
		} else if !slices.Contains(groups, gv.Group) {
			groups = append(groups, gv.Group)
		}
	}
	for _, r := range rootRoutes(core, groups) {
		s.parts[r.key] = s.rootPart(r)
	}

	// The v2 document is one large encoding; it runs beside the v3 ones.
	v2 := s.newLazyV2Locked(s.v2.Load())
	var v2Err error
	var wg sync.WaitGroup
	wg.Go(func() { _, v2Err = v2.get() })
	docs := s.encodeAllV3Locked()
	wg.Wait()
	for _, key := range slices.Sorted(maps.Keys(docs)) {
		if err := docs[key].err; err != nil {
			errs = append(errs, err)
		}
	}
	s.v3.Store(s.newV3Docs(docs))
	s.v2.Store(v2)
	return errors.Join(append(errs, v2Err)...)
}

// encodeAllV3Locked encodes every part's v3 document, in parallel: each
// is independent and encoding is most of Build.
func (s *Service) encodeAllV3Locked() map[string]*encodedDoc {
	docs := make(map[string]*encodedDoc, len(s.parts))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for key, p := range s.parts {
		wg.Go(func() {
			d := s.encodeV3(p)
			mu.Lock()
			docs[key] = d
			mu.Unlock()
		})
	}
	wg.Wait()
	return docs
}

// UpdateGroupVersion adds or replaces the document of gv from explicit
// definitions, as custom resources have no Go types: v2 and v3 define
// the resources' Object and List names (referring to each other as
// "#/definitions/<name>" and "#/components/schemas/<name>"); the types
// the routes refer to (Status, DeleteOptions, ...) come from the scheme.
// Only gv's v3 document and the index are re-encoded; the v2 document is
// rebuilt on its next request.
func (s *Service) UpdateGroupVersion(gv schema.GroupVersion, resources []routes.Resource, v2 map[string]spec.Schema, v3 map[string]*spec.Schema) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.groupVersionPart(gv, resources, nil, v2, v3)
	s.parts[p.key] = p
	s.replaceV3Locked(p.key, s.encodeV3(p))
	s.v2.Store(s.newLazyV2Locked(s.v2.Load()))
}

// RemoveGroupVersion removes the document of gv and its part of the v2
// document.
func (s *Service) RemoveGroupVersion(gv schema.GroupVersion) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := keyOf(gv)
	delete(s.groups, gv)
	if _, ok := s.parts[key]; !ok {
		return
	}
	delete(s.parts, key)
	s.replaceV3Locked(key, nil)
	s.v2.Store(s.newLazyV2Locked(s.v2.Load()))
}

// replaceV3Locked swaps in a snapshot where key's document is doc (nil
// removes it); the other documents are shared with the old snapshot.
func (s *Service) replaceV3Locked(key string, doc *encodedDoc) {
	docs := maps.Clone(s.v3.Load().docs)
	if doc == nil {
		delete(docs, key)
	} else {
		docs[key] = doc
	}
	s.v3.Store(s.newV3Docs(docs))
}

// TypeConverter is the server-side apply type converter of every kind of
// the scheme, from the same definitions as the documents.
func (s *Service) TypeConverter() (managedfields.TypeConverter, error) {
	return s.definitions.TypeConverter()
}

// lazyV2 is the v2 document of one set of parts, encoded on first use:
// the document merges every group version, so a custom resource change
// marks it stale rather than re-encoding megabytes per change.
type lazyV2 struct {
	parts []*part
	s     *Service
	// prev is the last good document before this one, served if this
	// one fails to encode. Set once at creation.
	prev *encodedDoc

	once sync.Once
	doc  *encodedDoc
	err  error
	good atomic.Pointer[encodedDoc] // doc once encoded without error
}

// newLazyV2Locked returns the v2 document of the current parts; old is
// the one it replaces, if any.
func (s *Service) newLazyV2Locked(old *lazyV2) *lazyV2 {
	l := &lazyV2{parts: sortedParts(s.parts), s: s}
	if old != nil {
		l.prev = old.lastGood()
	}
	return l
}

// get returns the document to serve and the error of encoding this one.
// The document is the previous good one (or nil) when encoding failed.
func (l *lazyV2) get() (*encodedDoc, error) {
	l.once.Do(func() {
		d := l.s.encodeV2(l.parts)
		if d.err != nil {
			l.doc, l.err = l.prev, d.err
			return
		}
		l.doc = d
		l.good.Store(d)
	})
	return l.doc, l.err
}

// lastGood is the newest good document this one knows of, without
// encoding anything: its own if encoded, else the one before it.
func (l *lazyV2) lastGood() *encodedDoc {
	if d := l.good.Load(); d != nil {
		return d
	}
	return l.prev
}
