// Package endpoints installs the REST storage of one API group version as
// an HTTP handler: it dispatches each resource request (by the RequestInfo
// the filter chain computed) to the handler of its verb, serves the
// group version's APIResourceList, and describes its resources for
// discovery.
package endpoints

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/endpoints/discovery"
	"github.com/kapi-dev/kapi/internal/endpoints/handlers"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// APIGroupVersion is the storage of one group version and what its
// handlers need.
type APIGroupVersion struct {
	GroupVersion schema.GroupVersion
	// Storage maps "resource" and "resource/subresource" to storage.
	Storage map[string]rest.Storage
	Scheme  *runtime.Scheme
	Codecs  serializer.CodecFactory
	// Admission runs on writes; nil admits everything.
	Admission admission.Interface
	// MaxRequestBodyBytes limits bodies; 0 means 3 MiB, as upstream.
	MaxRequestBodyBytes int64
	// MinRequestTimeout bounds watches without ?timeoutSeconds: they last
	// a random time in [min, 2*min). 0 means 1800s.
	MinRequestTimeout time.Duration
	Logger            *slog.Logger
	// TypeConverter gives server-side apply and managed fields the schema
	// of the group version's kinds; nil serves no apply and tracks no
	// managed fields.
	TypeConverter managedfields.TypeConverter
}

// StorageVersioner is implemented by storage whose objects are stored in
// another version than the one served; discovery's storageVersionHash is
// computed from it. Storage without it stores the served version.
type StorageVersioner interface {
	StorageVersion() schema.GroupVersion
}

// Install builds the handler serving every request under the group
// version's prefix (/api/v1 or /apis/<group>/<version>) and the
// resources to announce in discovery, sorted by name as upstream.
func (g *APIGroupVersion) Install() (http.Handler, []metav1.APIResource, error) {
	if g.Scheme == nil {
		return nil, nil, fmt.Errorf("group version %s: no scheme", g.GroupVersion)
	}
	h := &groupVersionHandler{
		prefix:    prefixOf(g.GroupVersion),
		gv:        g.GroupVersion,
		codecs:    g.Codecs,
		resources: map[string]*resourceHandlers{},
		logger:    g.logger(),
	}
	paths := make([]string, 0, len(g.Storage))
	for p := range g.Storage {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var apiResources []metav1.APIResource
	var errs []error
	for _, p := range paths {
		rh, apiResource, err := g.installResource(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("resource %q of %s: %w", p, g.GroupVersion, err))
			continue
		}
		h.resources[p] = rh
		apiResources = append(apiResources, apiResource)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	h.discovery = discovery.NewAPIVersionHandler(g.Codecs, g.Scheme, g.GroupVersion, apiResources)
	return h, apiResources, nil
}

func prefixOf(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "/api/" + gv.Version
	}
	return "/apis/" + gv.Group + "/" + gv.Version
}

func (g *APIGroupVersion) logger() *slog.Logger {
	if g.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return g.Logger
}

// scope is the handlers' RequestScope of one (sub)resource.
func (g *APIGroupVersion) scope(resource, subresource string, kind schema.GroupVersionKind, namespaced bool, storage rest.Storage) *handlers.RequestScope {
	maxBody := g.MaxRequestBodyBytes
	if maxBody == 0 {
		maxBody = handlers.DefaultMaxRequestBodyBytes
	}
	minTimeout := g.MinRequestTimeout
	if minTimeout == 0 {
		minTimeout = handlers.DefaultMinRequestTimeout
	}
	tc, _ := storage.(rest.TableConvertor)
	return &handlers.RequestScope{
		FieldManager:        g.fieldManager(resource, subresource, kind, storage),
		Serializer:          g.Codecs,
		ParameterCodec:      runtime.NewParameterCodec(g.Scheme),
		Creater:             g.Scheme,
		Convertor:           g.Scheme,
		Defaulter:           g.Scheme,
		Typer:               g.Scheme,
		TableConvertor:      tc,
		Resource:            g.GroupVersion.WithResource(resource),
		Subresource:         subresource,
		Kind:                kind,
		NamespaceScoped:     namespaced,
		Admission:           g.Admission,
		MaxRequestBodyBytes: maxBody,
		MinRequestTimeout:   minTimeout,
		Logger:              g.logger().With("resource", strings.Trim(resource+"/"+subresource, "/"), "groupVersion", g.GroupVersion.String()),
	}
}

// fieldManager builds the field manager of one (sub)resource, once, at
// install. Without a type converter, or for storage whose objects are not
// registered Go types (custom resources need another field manager),
// nothing is tracked; a kind the field manager cannot be built for is
// logged and tracks nothing, rather than failing the server.
func (g *APIGroupVersion) fieldManager(resource, subresource string, kind schema.GroupVersionKind, storage rest.Storage) *managedfields.FieldManager {
	if g.TypeConverter == nil {
		return nil
	}
	hub, ok := g.hubVersion(storage)
	if !ok {
		return nil
	}
	var reset map[string]struct{}
	if r, ok := storage.(rest.ResetFieldsStrategy); ok {
		reset = r.GetResetFields()
	}
	fm, err := handlers.NewFieldManager(g.TypeConverter, g.Scheme, kind, hub, subresource, reset)
	if err != nil {
		g.logger().Warn("managed fields are not tracked", "resource", strings.Trim(resource+"/"+subresource, "/"),
			"groupVersion", g.GroupVersion.String(), "err", err)
		return nil
	}
	return fm
}
