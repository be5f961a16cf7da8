package endpoints

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/endpoints/discovery"
	"github.com/kapi-dev/kapi/internal/endpoints/handlers"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// resourceHandlers are the verb handlers of one (sub)resource and the
// scope they share.
type resourceHandlers struct {
	namespaced bool
	verbs      map[string]http.Handler
	scope      *handlers.RequestScope
}

// verbHandler builds the handler of one verb if storage supports it.
type verbHandler func(storage rest.Storage, scope *handlers.RequestScope) (http.Handler, bool)

// verbTable says, per Kubernetes verb, which storage interface serves it;
// a storage's verbs in discovery are exactly those it implements.
func verbTable() map[string]verbHandler {
	return map[string]verbHandler{
		"get": func(s rest.Storage, scope *handlers.RequestScope) (http.Handler, bool) {
			r, ok := s.(rest.Getter)
			return handlers.GetResource(r, scope), ok
		},
		"list": func(s rest.Storage, scope *handlers.RequestScope) (http.Handler, bool) {
			r, ok := s.(rest.Lister)
			rw, _ := s.(rest.Watcher)
			return handlers.ListResource(r, rw, scope, false), ok
		},
		"watch": func(s rest.Storage, scope *handlers.RequestScope) (http.Handler, bool) {
			rw, ok := s.(rest.Watcher)
			r, _ := s.(rest.Lister)
			return handlers.ListResource(r, rw, scope, true), ok
		},
		"create": func(s rest.Storage, scope *handlers.RequestScope) (http.Handler, bool) {
			if r, ok := s.(rest.NamedCreater); ok {
				return handlers.CreateNamedResource(r, scope), true
			}
			r, ok := s.(rest.Creater)
			if !ok {
				return nil, false
			}
			return handlers.CreateResource(r, scope), true
		},
		"update": func(s rest.Storage, scope *handlers.RequestScope) (http.Handler, bool) {
			r, ok := s.(rest.Updater)
			return handlers.UpdateResource(r, scope), ok
		},
		"patch": func(s rest.Storage, scope *handlers.RequestScope) (http.Handler, bool) {
			r, ok := s.(rest.Patcher)
			_, unstructured := s.New().(runtime.Unstructured)
			patchTypes := handlers.PatchTypes(!unstructured)
			if scope.FieldManager != nil {
				patchTypes = append(patchTypes, handlers.ApplyPatchTypes()...)
			}
			return handlers.PatchResource(r, scope, patchTypes), ok
		},
		"delete": func(s rest.Storage, scope *handlers.RequestScope) (http.Handler, bool) {
			r, ok := s.(rest.GracefulDeleter)
			return handlers.DeleteResource(r, scope), ok
		},
		"deletecollection": func(s rest.Storage, scope *handlers.RequestScope) (http.Handler, bool) {
			r, ok := s.(rest.CollectionDeleter)
			return handlers.DeleteCollection(r, scope), ok
		},
	}
}

// connectVerbs are the request verbs of a connect subresource's methods.
var connectVerbs = map[string]string{
	http.MethodGet:    "get",
	http.MethodPost:   "create",
	http.MethodPut:    "update",
	http.MethodPatch:  "patch",
	http.MethodDelete: "delete",
}

// installResource builds the handlers and the discovery entry of the
// storage at path ("resource" or "resource/subresource").
func (g *APIGroupVersion) installResource(path string) (*resourceHandlers, metav1.APIResource, error) {
	storage := g.Storage[path]
	resource, subresource, _ := strings.Cut(path, "/")
	namespaced, err := g.namespaced(resource)
	if err != nil {
		return nil, metav1.APIResource{}, err
	}
	kind, err := g.kindOf(storage)
	if err != nil {
		return nil, metav1.APIResource{}, err
	}
	scope := g.scope(resource, subresource, kind, namespaced, storage)
	rh := &resourceHandlers{namespaced: namespaced, verbs: map[string]http.Handler{}, scope: scope}
	apiResource := metav1.APIResource{Name: path, Namespaced: namespaced, Kind: kind.Kind, Verbs: []string{}}
	if kind.GroupVersion() != g.GroupVersion {
		// e.g. deployments/scale answers autoscaling/v1 Scale
		apiResource.Group, apiResource.Version = kind.Group, kind.Version
	}
	for verb, build := range verbTable() {
		if h, ok := build(storage, scope); ok {
			if name := handlers.SpanNames[verb]; name != "" {
				h = handlers.Traced(name, h)
			}
			rh.verbs[verb] = h
			apiResource.Verbs = append(apiResource.Verbs, verb)
		}
	}
	if c, ok := storage.(rest.Connecter); ok {
		for _, method := range c.ConnectMethods() {
			verb, known := connectVerbs[method]
			if !known || rh.verbs[verb] != nil {
				continue
			}
			rh.verbs[verb] = handlers.ConnectResource(c, scope)
			apiResource.Verbs = append(apiResource.Verbs, verb)
		}
	}
	slices.Sort(apiResource.Verbs)
	if p, ok := storage.(rest.ShortNamesProvider); ok {
		apiResource.ShortNames = p.ShortNames()
	}
	if p, ok := storage.(rest.CategoriesProvider); ok {
		apiResource.Categories = p.Categories()
	}
	if subresource == "" {
		apiResource.SingularName = strings.ToLower(kind.Kind)
		if p, ok := storage.(rest.SingularNameProvider); ok {
			apiResource.SingularName = p.GetSingularName()
		}
		storageVersion := kind.GroupVersion()
		if gv, ok := g.hubVersion(storage); ok {
			storageVersion = gv
		}
		if v, ok := storage.(StorageVersioner); ok {
			storageVersion = v.StorageVersion()
		}
		apiResource.StorageVersionHash = discovery.StorageVersionHash(storageVersion.Group, storageVersion.Version, kind.Kind)
	}
	return rh, apiResource, nil
}

// namespaced is the scope of resource, which its subresources share.
func (g *APIGroupVersion) namespaced(resource string) (bool, error) {
	parent, ok := g.Storage[resource]
	if !ok {
		return false, fmt.Errorf("missing parent storage %q", resource)
	}
	scoper, ok := parent.(rest.Scoper)
	if !ok {
		return false, fmt.Errorf("%q must implement rest.Scoper", resource)
	}
	return scoper.NamespaceScoped(), nil
}

// kindOf is the kind storage serves: the one of its object in this group,
// else the object's own (a subresource of another group's kind).
func (g *APIGroupVersion) kindOf(storage rest.Storage) (schema.GroupVersionKind, error) {
	if p, ok := storage.(rest.GroupVersionKindProvider); ok {
		return p.GroupVersionKind(g.GroupVersion), nil
	}
	obj := storage.New()
	kinds, _, err := g.Scheme.ObjectKinds(obj)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	for _, k := range kinds {
		if k.Group == g.GroupVersion.Group {
			return g.GroupVersion.WithKind(k.Kind), nil
		}
	}
	if len(kinds) == 0 {
		return schema.GroupVersionKind{}, fmt.Errorf("no kind registered for %T", obj)
	}
	return kinds[0], nil
}

// hubVersion is the version of the storage's own objects, in which they
// are stored: the one in this group if the type is registered there (a v2
// HorizontalPodAutoscaler behind autoscaling/v1), else its first.
func (g *APIGroupVersion) hubVersion(storage rest.Storage) (schema.GroupVersion, bool) {
	kinds, _, err := g.Scheme.ObjectKinds(storage.New())
	if err != nil || len(kinds) == 0 {
		return schema.GroupVersion{}, false
	}
	for _, k := range kinds {
		if k.Group == g.GroupVersion.Group {
			return k.GroupVersion(), true
		}
	}
	return kinds[0].GroupVersion(), true
}
