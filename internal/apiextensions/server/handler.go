// Package server is the extensions server's custom resource handler: it
// serves /apis/<group>/<version>/... of every Established
// CustomResourceDefinition from one generic store per CRD, starting and
// stopping as CRDs come and go, and keeps discovery and the OpenAPI
// documents in step.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/endpoints/discovery"
	"github.com/kapi-dev/kapi/internal/endpoints/handlers/responsewriters"
	"github.com/kapi-dev/kapi/internal/endpoints/openapi"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/endpoints/warning"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Source lists and watches CRDs; the integrator backs it with the CRD
// registry storage.
type Source interface {
	List(ctx context.Context) ([]*apiextv1.CustomResourceDefinition, error)
	// Watch ticks whenever any CRD changed.
	Watch(ctx context.Context) (<-chan struct{}, error)
}

// Config is what the handler serves with.
type Config struct {
	Source Source
	// RESTOptionsGetter stores custom resources as JSON:
	// GetRESTOptions(gr, &unstructured.Unstructured{}).
	RESTOptionsGetter generic.RESTOptionsGetter
	// Scheme is accepted for the integrator's convenience and unused:
	// each CRD gets its own scheme (meta types under its group versions,
	// its field labels), so the shared one is never written at runtime.
	Scheme    *runtime.Scheme
	Admission admission.Interface
	// Discovery and OpenAPI, when set, are kept in step with the CRDs.
	Discovery           *discovery.Manager
	OpenAPI             *openapi.Service
	MaxRequestBodyBytes int64
	MinRequestTimeout   time.Duration
	Logger              *slog.Logger
	// Schema compiles the versions' schemas (validation, pruning,
	// defaulting, OpenAPI); nil keeps every field and validates nothing.
	Schema SchemaCompiler
	// NotFound answers what no CRD serves; nil writes upstream's 404.
	NotFound http.Handler
	// RetryInterval is how long Run waits after a failed List or Watch;
	// 0 means one second.
	RetryInterval time.Duration
	// Converters builds the converter of CRDs whose conversion strategy is
	// Webhook; nil makes webhook conversion fail with a clear error.
	Converters ConverterFactory
}

// Handler serves the custom resources of every Established CRD.
type Handler struct {
	c      Config
	logger *slog.Logger
	infos  *request.RequestInfoFactory
	// crds is the served snapshot, keyed by group/plural; replaced whole
	// on every change so requests never lock.
	crds   atomic.Pointer[map[schema.GroupResource]*servedCRD]
	synced atomic.Bool
	mu     sync.Mutex // serializes sync
	// published is what discovery and OpenAPI were last given, by group
	// version.
	published map[schema.GroupVersion]bool
	// versionLists serve /apis/<group>/<version> (the APIResourceList).
	versionLists atomic.Pointer[map[schema.GroupVersion]http.Handler]
	metaCodecs   serializer.CodecFactory
	metaScheme   *runtime.Scheme
	// fieldManagers holds what every CRD's field managers share.
	fieldManagers *fieldManagers
}

// New checks c and returns a handler serving nothing until Run syncs.
func New(c Config) (*Handler, error) {
	var errs []error
	if c.Source == nil {
		errs = append(errs, errors.New("Source is required"))
	}
	if c.RESTOptionsGetter == nil {
		errs = append(errs, errors.New("RESTOptionsGetter is required"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("custom resource handler: %w", err)
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.RetryInterval == 0 {
		c.RetryInterval = time.Second
	}
	fm, err := newFieldManagers()
	if err != nil {
		return nil, fmt.Errorf("custom resource handler: %w", err)
	}
	h := &Handler{c: c, logger: c.Logger, fieldManagers: fm,
		infos: request.NewRequestInfoFactory(), published: map[schema.GroupVersion]bool{}}
	empty := map[schema.GroupResource]*servedCRD{}
	h.crds.Store(&empty)
	h.metaScheme = runtime.NewScheme()
	metav1.AddToGroupVersion(h.metaScheme, schema.GroupVersion{Version: "v1"})
	h.metaCodecs = serializer.NewCodecFactory(h.metaScheme)
	lists := map[schema.GroupVersion]http.Handler{}
	h.versionLists.Store(&lists)
	return h, nil
}

// HasSynced reports whether the CRDs present at start are being served.
func (h *Handler) HasSynced() bool { return h.synced.Load() }

// Storage returns the store of a CRD's resource, nil if not served.
func (h *Handler) Storage(group, resource string) rest.Storage {
	if s := (*h.crds.Load())[schema.GroupResource{Group: group, Resource: resource}]; s != nil {
		return s.store
	}
	return nil
}

// Run follows the Source until ctx ends: every tick resyncs.
func (h *Handler) Run(ctx context.Context) {
	for ctx.Err() == nil {
		ticks, err := h.c.Source.Watch(ctx)
		if err == nil {
			err = h.Sync(ctx)
		}
		if err != nil {
			h.logger.Error("syncing custom resource definitions", "err", err)
			if !sleep(ctx, h.c.RetryInterval) {
				return
			}
			continue
		}
		h.follow(ctx, ticks)
	}
}

// follow resyncs on every tick until the watch closes or ctx ends.
func (h *Handler) follow(ctx context.Context, ticks <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-ticks:
			if !ok {
				return
			}
			if err := h.Sync(ctx); err != nil {
				h.logger.Error("syncing custom resource definitions", "err", err)
			}
		}
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// ServeHTTP serves the custom resource requests and 404s the rest.
func (h *Handler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	info, ok := request.RequestInfoFrom(req.Context())
	if !ok {
		var err error
		if info, err = h.infos.NewRequestInfo(req); err != nil {
			responsewriters.ErrorNegotiated(apierrors.NewBadRequest(err.Error()), h.metaCodecs, schema.GroupVersion{}, w, req)
			return
		}
	}
	if !info.IsResourceRequest {
		group, version, _ := strings.Cut(strings.Trim(strings.TrimPrefix(req.URL.Path, "/apis/"), "/"), "/")
		if l := (*h.versionLists.Load())[schema.GroupVersion{Group: group, Version: version}]; l != nil && strings.HasPrefix(req.URL.Path, "/apis/") {
			l.ServeHTTP(w, req)
			return
		}
		h.notFound(w, req)
		return
	}
	s, done := h.served(schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}, info.Verb != "watch")
	if s == nil {
		h.notFound(w, req)
		return
	}
	defer done()
	v := s.versions[info.APIVersion]
	if v == nil {
		h.notFound(w, req)
		return
	}
	key := info.Resource
	if info.Subresource != "" {
		key += "/" + info.Subresource
	}
	verbs, ok := v.verbs[key]
	if !ok {
		h.notFound(w, req)
		return
	}
	if code := routeError(s.namespaced, info); code != 0 {
		responsewriters.ErrorNegotiated(genericError(code), s.codecs, schema.GroupVersion{Group: s.group, Version: v.name}, w, req)
		return
	}
	for _, text := range v.warnings {
		warning.AddWarning(req.Context(), "", text)
	}
	handler, ok := verbs[info.Verb]
	if !ok {
		responsewriters.ErrorNegotiated(genericError(http.StatusMethodNotAllowed), s.codecs, schema.GroupVersion{Group: s.group, Version: v.name}, w, req)
		return
	}
	// Custom resources count in apiserver_request_total like built-in ones.
	request.MarkRouted(req.Context())
	handler.ServeHTTP(w, req)
}

// served returns the CRD serving gr, and what ends the request's use of
// it: a request that holds it (any but a watch) keeps a replaced CRD's
// storage until it is done.
func (h *Handler) served(gr schema.GroupResource, hold bool) (*servedCRD, func()) {
	for {
		s := (*h.crds.Load())[gr]
		if s == nil || !hold {
			return s, func() {}
		}
		if s.users.acquire() {
			return s, s.users.done
		}
		// Retired after the load: Sync stored the next snapshot first.
	}
}

func (h *Handler) notFound(w http.ResponseWriter, req *http.Request) {
	if h.c.NotFound != nil {
		h.c.NotFound.ServeHTTP(w, req)
		return
	}
	responsewriters.ErrorNegotiated(genericError(http.StatusNotFound), h.metaCodecs, schema.GroupVersion{}, w, req)
}

// routeError mirrors upstream's routes for a resource of this scope:
// namespaced objects only under namespaces/<ns>/, no namespaced paths for
// cluster-scoped ones; collections take no PUT/PATCH, objects no POST.
func routeError(namespaced bool, info *request.RequestInfo) int {
	switch {
	case info.Name == "" && (info.Verb == "update" || info.Verb == "patch"):
		return http.StatusMethodNotAllowed
	case info.Name != "" && info.Subresource == "" && info.Verb == "create":
		return http.StatusMethodNotAllowed
	}
	if !namespaced {
		if info.Namespace != "" {
			return http.StatusNotFound
		}
		return 0
	}
	if info.Namespace != "" {
		return 0
	}
	switch info.Verb {
	case "get", "update", "patch", "delete":
		return http.StatusNotFound
	case "create", "deletecollection":
		return http.StatusMethodNotAllowed
	}
	return 0
}

func genericError(code int) error {
	return apierrors.NewGenericServerResponse(code, "", schema.GroupResource{}, "", "", 0, false)
}
