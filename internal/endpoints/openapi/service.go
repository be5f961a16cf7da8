// Package openapi serves the OpenAPI documents of the server: /openapi/v2
// (JSON and protobuf) with every group version, and /openapi/v3 with an
// index and one document per group version. Documents are built from the
// installed resources (routes) and their Go types (definitions) when first
// asked for, under hashes known beforehand, then served from their
// encoding with ETags and cache headers; custom resources replace their
// group versions' documents through the same service.
package openapi

import (
	"cmp"
	"errors"
	"log/slog"
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
// It keeps what each document is built from (a source) and its hash,
// and builds a document on the first request for it, keeping only its
// encoding: most documents are never asked for, and the reflected
// definitions they are built from are much larger than their bytes.
//
// Requests read immutable snapshots through atomic pointers and never
// wait for a change; changes are serialised by mu and replace what they
// touch: a group version's v3 document and the index at once, the v2
// document lazily on its next request.
type Service struct {
	scheme *runtime.Scheme
	info   Info
	// now stamps Last-Modified and Expires; tests replace it.
	now func() time.Time

	// encodes counts documents encoded, so tests can tell what was built.
	encodes atomic.Int64

	converterOnce sync.Once
	converter     managedfields.TypeConverter
	converterErr  error
	// kindBuilder builds the per-kind converters until converter is built.
	kindBuilderMu sync.Mutex
	kindBuilder   *definitions.Builder

	mu sync.Mutex
	// groups are the built-in group versions, described by Build.
	groups map[schema.GroupVersion]installed
	// sources describe every document, by v3 key.
	sources map[string]*source
	// baseHash goes into every document's hash; see baseHashLocked.
	baseHash []byte

	v2 atomic.Pointer[lazyV2]
	v3 atomic.Pointer[v3Docs]

	// remoteV2 and remoteV3 are the documents of aggregated servers, by
	// APIService name.
	remoteV2 map[string]RemoteV2
	remoteV3 map[string]remoteV3
	// log reports documents left out; see SetLogger.
	log atomic.Pointer[slog.Logger]
}

// SetLogger sets where the service reports aggregated servers'
// documents it leaves out; none discards.
func (s *Service) SetLogger(l *slog.Logger) { s.log.Store(l) }

func (s *Service) logger() *slog.Logger {
	if l := s.log.Load(); l != nil {
		return l
	}
	return slog.New(slog.DiscardHandler)
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
		scheme:  scheme,
		info:    info,
		now:     time.Now,
		groups:  map[schema.GroupVersion]installed{},
		sources: map[string]*source{},
	}
	s.v3.Store(s.newV3DocsLocked(&v3Docs{}))
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

// Build describes every document of the added group versions and of the
// discovery roots, and publishes their hashes in the v3 index; call it
// once the built-in group versions are added. It encodes nothing: each
// document is built on its first request. A resource whose kind the
// scheme does not know is left out and reported; everything else is
// still served.
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
		s.sources[keyOf(gv)] = s.groupSourceLocked(gv, resources, roots, nil, nil)
		if gv.Group == "" {
			core = true
		} else if !slices.Contains(groups, gv.Group) {
			groups = append(groups, gv.Group)
		}
	}
	for _, r := range rootRoutes(core, groups) {
		s.sources[r.key] = s.rootSourceLocked(r)
	}
	s.publishLocked()
	return errors.Join(errs...)
}

// UpdateGroupVersion adds or replaces the document of gv from explicit
// definitions, as custom resources have no Go types: v2 and v3 define
// the resources' Object and List names (referring to each other as
// "#/definitions/<name>" and "#/components/schemas/<name>"); the types
// the routes refer to (Status, DeleteOptions, ...) come from the scheme.
// The service keeps the definitions (the caller must not change them)
// and builds the documents on their next request; gv's hash in the
// index changes when they do.
func (s *Service) UpdateGroupVersion(gv schema.GroupVersion, resources []routes.Resource, v2 map[string]spec.Schema, v3 map[string]*spec.Schema) {
	s.mu.Lock()
	defer s.mu.Unlock()
	src := s.groupSourceLocked(gv, slices.Clone(resources), nil, maps.Clone(v2), maps.Clone(v3))
	s.sources[src.key] = src
	s.publishLocked()
}

// RemoveGroupVersion removes the document of gv and its part of the v2
// document.
func (s *Service) RemoveGroupVersion(gv schema.GroupVersion) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := keyOf(gv)
	delete(s.groups, gv)
	if _, ok := s.sources[key]; !ok {
		return
	}
	delete(s.sources, key)
	s.publishLocked()
}

// publishLocked swaps in the snapshots of the current sources; documents
// whose source did not change keep their encoding.
func (s *Service) publishLocked() {
	s.v3.Store(s.newV3DocsLocked(s.v3.Load()))
	s.v2.Store(s.newLazyV2Locked(s.v2.Load()))
}

// KindTypeConverter is the server-side apply type converter of gvk alone
// (see definitions.Builder.KindTypeConverter), from a definitions builder
// kept until TypeConverter has been built.
func (s *Service) KindTypeConverter(gvk schema.GroupVersionKind) (managedfields.TypeConverter, error) {
	s.kindBuilderMu.Lock()
	if s.kindBuilder == nil {
		s.kindBuilder = definitions.NewBuilder(s.scheme)
	}
	b := s.kindBuilder
	s.kindBuilderMu.Unlock()
	return b.KindTypeConverter(gvk)
}

// BuiltTypeConverter is TypeConverter if this process has already built
// it for the same kinds, nil otherwise; it never builds.
func (s *Service) BuiltTypeConverter() managedfields.TypeConverter {
	return definitions.NewBuilder(s.scheme).BuiltTypeConverter()
}

// TypeConverter is the server-side apply type converter of every kind of
// the scheme, from the same definitions as the documents. It is built
// once, on the first call, with a definitions builder of its own that is
// dropped after: the converter is what is kept.
func (s *Service) TypeConverter() (managedfields.TypeConverter, error) {
	s.converterOnce.Do(func() {
		s.converter, s.converterErr = definitions.NewBuilder(s.scheme).TypeConverter()
		s.kindBuilderMu.Lock()
		s.kindBuilder = nil
		s.kindBuilderMu.Unlock()
	})
	return s.converter, s.converterErr
}
