// Package generic is the one REST store every resource uses: it implements
// the verbs on top of storage.Interface and asks the resource's strategies
// only for what is special about it.
package generic

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/storage"
)

// RESTOptionsGetter gives a resource its storage. The control plane
// implements it over one storage.Backend, choosing the codec for the
// resource's storage version.
type RESTOptionsGetter interface {
	GetRESTOptions(resource schema.GroupResource, example runtime.Object) (RESTOptions, error)
}

// RESTOptions is what a resource's store is built from.
type RESTOptions struct {
	// Storage returns the storage for the resource (ResourcePrefix and the
	// codec already chosen by the getter; NewFunc/NewListFunc come from the
	// store).
	Storage func(newFunc, newListFunc func() runtime.Object) (storage.Interface, error)
	// ResourcePrefix is the key folder, "/" + resource by default (e.g.
	// "/configmaps"); the storage backend adds its own prefix ("/registry").
	ResourcePrefix string
	// EnableGarbageCollection marks objects with orphan/foreground
	// finalizers on delete instead of deleting dependents inline (later).
	EnableGarbageCollection bool
}

// StoreOptions complete a Store.
type StoreOptions struct {
	RESTOptions RESTOptionsGetter
	// AttrFunc returns labels and selectable fields; defaults to
	// DefaultClusterScopedAttr / DefaultNamespaceScopedAttr.
	AttrFunc storage.AttrFunc
}
