// Package inprocess feeds the API server's own informers straight from its
// REST storage. A list or watch takes the path of an HTTP one from the
// point where its options are decoded (the same defaults, validation and
// field-label mapping, the same registry store and watch cache) but skips
// the connection, TLS, HTTP/2, the filter chain and an encode and a decode
// of every object: the informer gets the cache's objects.
//
// The server's informers are its own loopback clients, which are
// privileged and exempt from priority and fairness, so skipping the filter
// chain changes no answer they get. Their reads are not in the request
// metrics or the audit log.
//
// Objects handed to informers share their maps and slices with the watch
// cache: they follow the rule every informer object already follows, never
// modified in place. The top-level struct is the informer's own copy.
package inprocess

import (
	"reflect"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/endpoints/handlers"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/storage"
)

// Resources are the REST storages the server serves, by kind, as the
// API installer binds them.
type Resources struct {
	scheme *runtime.Scheme

	mu     sync.RWMutex
	byKind map[schema.GroupVersionKind]*resource
}

// resource is one served resource: its storage as a lister and watcher,
// and the Go type the storage hands out (the resource's storage version,
// which may differ from the kind a version serves).
type resource struct {
	gvr        schema.GroupVersionResource
	kind       schema.GroupVersionKind
	lister     rest.Lister
	watcher    rest.Watcher
	namespaced bool
	storedType reflect.Type
}

// NewResources returns an empty set over scheme, which converts between
// versions and maps field labels.
func NewResources(scheme *runtime.Scheme) *Resources {
	return &Resources{scheme: scheme, byKind: map[schema.GroupVersionKind]*resource{}}
}

// Bind adds the resources of one served group version (storages keyed
// "resource" or "resource/subresource", as rest.APIGroupInfo holds them);
// those that cannot both list and watch, and subresources, are left out.
// The first resource bound for a kind keeps it.
func (r *Resources) Bind(gv schema.GroupVersion, storages map[string]rest.Storage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name, st := range storages {
		if strings.Contains(name, "/") {
			continue
		}
		lister, ok := st.(rest.Lister)
		if !ok {
			continue
		}
		watcher, ok := st.(rest.Watcher)
		if !ok {
			continue
		}
		obj := st.New()
		kinds, _, err := r.scheme.ObjectKinds(obj)
		if err != nil || len(kinds) == 0 {
			continue
		}
		kind := gv.WithKind(kinds[0].Kind)
		if p, ok := st.(rest.GroupVersionKindProvider); ok {
			kind = p.GroupVersionKind(gv)
		}
		if _, taken := r.byKind[kind]; taken {
			continue
		}
		scoper, _ := st.(rest.Scoper)
		r.byKind[kind] = &resource{
			gvr:        gv.WithResource(name),
			kind:       kind,
			lister:     lister,
			watcher:    watcher,
			namespaced: scoper != nil && scoper.NamespaceScoped(),
			storedType: reflect.TypeOf(obj),
		}
	}
}

// Serves reports whether obj's type is one of the scheme's versioned
// kinds, which an informer of this server can follow in-process. Whether
// the server serves it is known only once it is bound: until then, and if
// it never is, a list or watch gets the 404 an HTTP client would.
func (r *Resources) Serves(obj runtime.Object) bool {
	kinds, unversioned, err := r.scheme.ObjectKinds(obj)
	return err == nil && !unversioned && len(kinds) > 0
}

// lookup finds the bound resource of one of kinds.
func (r *Resources) lookup(kinds []schema.GroupVersionKind) (*resource, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, k := range kinds {
		if res, ok := r.byKind[k]; ok {
			return res, true
		}
	}
	return nil, false
}

// ListerWatcher lists and watches objects of obj's kind in namespace (""
// for all), each request's options first passed to tweak if it is not nil,
// as a factory's tweakListOptions.
func (r *Resources) ListerWatcher(obj runtime.Object, namespace string, tweak func(*metav1.ListOptions)) cache.ListerWatcher {
	kinds, _, _ := r.scheme.ObjectKinds(obj)
	return &listWatch{r: r, kinds: kinds, objType: reflect.TypeOf(obj), namespace: namespace, tweak: tweak}
}

// NewInformer is client-go's typed informer for obj's kind (indexed by
// namespace, as the generated ones are) over ListerWatcher.
func (r *Resources) NewInformer(obj runtime.Object, namespace string, tweak func(*metav1.ListOptions), resync time.Duration) cache.SharedIndexInformer {
	return cache.NewSharedIndexInformerWithOptions(r.ListerWatcher(obj, namespace, tweak), obj,
		cache.SharedIndexInformerOptions{
			ResyncPeriod: resync,
			Indexers:     cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
		})
}

// forInformer turns an object the storage handed out into one of the
// informer's type: a top-level copy without kind and apiVersion (client-go
// drops them from typed objects it decodes), converted when the storage
// version's type differs from the informer's.
func (r *Resources) forInformer(obj runtime.Object, res *resource, objType reflect.Type) (runtime.Object, error) {
	if h, ok := obj.(storage.SharedObjectHolder); ok {
		obj = h.SharedObject()
	} else if c, ok := obj.(runtime.CacheableObject); ok {
		obj = c.GetObject()
	}
	if reflect.TypeOf(obj) != objType {
		converted, err := r.scheme.ConvertToVersion(obj, handlers.ServedVersion(res.kind.GroupVersion(), r.scheme))
		if err != nil {
			return nil, err
		}
		obj = converted
	} else {
		obj = shallowCopy(obj)
	}
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return obj, nil
}

// listForInformer does for a list what forInformer does for an object.
// A typed list's items are values, copies of the cache's structs, so
// their kinds are cleared in place.
func (r *Resources) listForInformer(list runtime.Object, res *resource, objType reflect.Type) (runtime.Object, error) {
	if res.storedType != objType {
		converted, err := r.scheme.ConvertToVersion(list, handlers.ServedVersion(res.kind.GroupVersion(), r.scheme))
		if err != nil {
			return nil, err
		}
		list = converted
	}
	err := meta.EachListItem(list, func(item runtime.Object) error {
		item.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		return nil
	})
	return list, err
}

// shallowCopy copies the struct obj points to, sharing what it refers to.
func shallowCopy(obj runtime.Object) runtime.Object {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return obj
	}
	c := reflect.New(v.Elem().Type())
	c.Elem().Set(v.Elem())
	if copied, ok := c.Interface().(runtime.Object); ok {
		return copied
	}
	return obj
}

// NewObject returns an empty object of the kind the resource gvr serves,
// once it is bound.
func (r *Resources) NewObject(gvr schema.GroupVersionResource) (runtime.Object, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for kind, res := range r.byKind {
		if res.gvr == gvr {
			obj, err := r.scheme.New(kind)
			return obj, err == nil
		}
	}
	return nil, false
}
