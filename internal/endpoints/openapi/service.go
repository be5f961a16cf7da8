// Package openapi serves the OpenAPI documents of the server: /openapi/v2
// (JSON and protobuf) with every group version, and /openapi/v3 with an
// index and one document per group version. Documents are built from the
// installed resources (routes) and their Go types (definitions), encoded
// once, and served with ETags and cache headers; custom resources replace
// their group versions' documents through the same service.
package openapi

import (
	"net/http"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/definitions"
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
type Service struct {
	scheme      *runtime.Scheme
	info        Info
	definitions *definitions.Builder

	mu     sync.Mutex
	groups map[schema.GroupVersion][]metav1.APIResource
}

// NewService returns a service describing resources whose objects are
// registered in scheme.
func NewService(scheme *runtime.Scheme, info Info) *Service {
	return &Service{scheme: scheme, info: info, definitions: definitions.NewBuilder(scheme), groups: map[schema.GroupVersion][]metav1.APIResource{}}
}

// AddGroupVersion adds the resources of gv, as the group version's
// installer announced them in discovery, with their storage (keyed
// "resource" and "resource/sub"), which says what else they serve
// (connect methods, patch types).
func (s *Service) AddGroupVersion(gv schema.GroupVersion, resources []metav1.APIResource, storage map[string]rest.Storage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.groups[gv] = resources
}

// Build builds and encodes every document; call it once the built-in
// group versions are added.
// STUB.
func (s *Service) Build() error { return nil }

// TypeConverter is the server-side apply type converter of every kind of
// the scheme, from the same definitions as the documents.
func (s *Service) TypeConverter() (managedfields.TypeConverter, error) {
	return s.definitions.TypeConverter()
}

// Install serves /openapi/v2, /openapi/v3 and /openapi/v3/<path> on mux.
// STUB.
func (s *Service) Install(mux Mux) {}
