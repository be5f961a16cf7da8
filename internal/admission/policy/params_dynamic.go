package policy

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/restmapper"
)

// DynamicParams reads parameters of any kind, built-in or custom: from an
// informer of the kind once it has synced, and from the API directly
// before that or when the informer does not have the object yet (as
// upstream falls back to a direct read).
type DynamicParams struct {
	client  dynamic.Interface
	mapper  *restmapper.DeferredDiscoveryRESTMapper
	factory dynamicinformer.DynamicSharedInformerFactory
	// start starts the informers asked for so far; nil leaves them unstarted
	// (then every read goes to the API).
	start func()

	mu     sync.Mutex
	stores map[schema.GroupVersionKind]*dynamicStore
}

// NewDynamicParams reads through client, maps kinds with disco and keeps
// its informers in factory, which start starts.
func NewDynamicParams(client dynamic.Interface, disco discovery.DiscoveryInterface, factory dynamicinformer.DynamicSharedInformerFactory, start func()) *DynamicParams {
	return &DynamicParams{
		client:  client,
		mapper:  restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disco)),
		factory: factory,
		start:   start,
		stores:  map[schema.GroupVersionKind]*dynamicStore{},
	}
}

// Store implements ParamSource.
func (d *DynamicParams) Store(ctx context.Context, apiVersion, kind string) (ParamStore, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	gvk := gv.WithKind(kind)
	d.mu.Lock()
	s := d.stores[gvk]
	d.mu.Unlock()
	if s != nil {
		return s, nil
	}
	m, err := d.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		// a custom resource created since discovery was cached
		d.mapper.Reset()
		m, err = d.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return nil, err
	}
	s = &dynamicStore{
		client:     d.client.Resource(m.Resource),
		namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace,
	}
	if d.factory != nil {
		s.informer = d.factory.ForResource(m.Resource)
		s.informer.Informer() // registers it before start
		if d.start != nil {
			d.start()
		}
	}
	d.mu.Lock()
	if old := d.stores[gvk]; old != nil {
		s = old
	} else {
		d.stores[gvk] = s
	}
	d.mu.Unlock()
	return s, nil
}

type dynamicStore struct {
	client     dynamic.NamespaceableResourceInterface
	namespaced bool
	informer   informers.GenericInformer
}

func (s *dynamicStore) Namespaced() bool { return s.namespaced }

func (s *dynamicStore) synced() bool {
	return s.informer != nil && s.informer.Informer().HasSynced()
}

func (s *dynamicStore) Get(ctx context.Context, namespace, name string) (map[string]any, error) {
	if s.synced() {
		var obj runtime.Object
		var err error
		if s.namespaced {
			obj, err = s.informer.Lister().ByNamespace(namespace).Get(name)
		} else {
			obj, err = s.informer.Lister().Get(name)
		}
		if err == nil {
			if u, ok := obj.(*unstructured.Unstructured); ok {
				return u.Object, nil
			}
		}
	}
	var u *unstructured.Unstructured
	var err error
	if s.namespaced {
		u, err = s.client.Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	} else {
		u, err = s.client.Get(ctx, name, metav1.GetOptions{})
	}
	if err != nil {
		return nil, err
	}
	return u.Object, nil
}

func (s *dynamicStore) List(ctx context.Context, namespace string, selector labels.Selector) ([]map[string]any, error) {
	var out []map[string]any
	if s.synced() {
		var objs []runtime.Object
		var err error
		if s.namespaced {
			objs, err = s.informer.Lister().ByNamespace(namespace).List(selector)
		} else {
			objs, err = s.informer.Lister().List(selector)
		}
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			if u, ok := o.(*unstructured.Unstructured); ok {
				out = append(out, u.Object)
			}
		}
		return out, nil
	}
	var l *unstructured.UnstructuredList
	var err error
	opts := metav1.ListOptions{LabelSelector: selector.String()}
	if s.namespaced {
		l, err = s.client.Namespace(namespace).List(ctx, opts)
	} else {
		l, err = s.client.List(ctx, opts)
	}
	if err != nil {
		return nil, err
	}
	for i := range l.Items {
		out = append(out, l.Items[i].Object)
	}
	return out, nil
}
