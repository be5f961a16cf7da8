// Package rest defines the interfaces between the REST handlers and the
// storage of each resource: the verbs a storage may implement, and the
// strategies through which a resource says what is special about it.
package rest

import (
	"context"
	"net/http"

	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// Storage is the minimum a resource's REST storage provides.
type Storage interface {
	// New returns an empty object of the resource's kind.
	New() runtime.Object
	// Destroy releases what the storage holds (watches, caches).
	Destroy()
}

// Scoper says whether a resource lives in namespaces.
type Scoper interface {
	NamespaceScoped() bool
}

// SingularNameProvider gives the singular name shown in discovery.
type SingularNameProvider interface {
	GetSingularName() string
}

// ShortNamesProvider gives short names for discovery (cm, ns, ...).
type ShortNamesProvider interface {
	ShortNames() []string
}

// CategoriesProvider gives the categories for discovery ("all", ...).
type CategoriesProvider interface {
	Categories() []string
}

// Getter reads one object by name (namespace from the context).
type Getter interface {
	Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error)
}

// Lister lists objects.
type Lister interface {
	NewList() runtime.Object
	List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error)
	TableConvertor
}

// TableConvertor renders objects as a meta.k8s.io/v1 Table.
type TableConvertor interface {
	// ConvertToTable renders one object or a list. tableOptions is a
	// *metav1.TableOptions or nil.
	ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error)
}

// ValidateObjectFunc is run by the storage after the strategy validated the
// object and before it is written; admission validation comes in here.
type ValidateObjectFunc func(ctx context.Context, obj runtime.Object) error

// ValidateObjectUpdateFunc is the update counterpart of ValidateObjectFunc.
type ValidateObjectUpdateFunc func(ctx context.Context, obj, old runtime.Object) error

// ValidateAllObjectFunc accepts everything.
func ValidateAllObjectFunc(context.Context, runtime.Object) error { return nil }

// ValidateAllObjectUpdateFunc accepts everything.
func ValidateAllObjectUpdateFunc(context.Context, runtime.Object, runtime.Object) error {
	return nil
}

// Creater creates objects.
type Creater interface {
	New() runtime.Object
	Create(ctx context.Context, obj runtime.Object, createValidation ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error)
}

// UpdatedObjectInfo computes the new object from the current one inside the
// storage's guaranteed update, so updates and patches retry on conflicts
// against fresh data.
type UpdatedObjectInfo interface {
	Preconditions() *metav1.Preconditions
	UpdatedObject(ctx context.Context, oldObj runtime.Object) (newObj runtime.Object, err error)
}

// NamedCreater creates an object under a named parent: the subresources
// answering POST on one object (pods/binding, pods/eviction,
// serviceaccounts/token).
type NamedCreater interface {
	New() runtime.Object
	Create(ctx context.Context, name string, obj runtime.Object, createValidation ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error)
}

// Updater replaces objects (and creates them when the strategy allows).
type Updater interface {
	New() runtime.Object
	// Update returns the stored object and whether it was created.
	Update(ctx context.Context, name string, objInfo UpdatedObjectInfo, createValidation ValidateObjectFunc, updateValidation ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error)
}

// Patcher is what the patch handler needs: a Getter and an Updater.
type Patcher interface {
	Getter
	Updater
}

// GracefulDeleter deletes one object. deleted=false means the object was
// only marked (finalizers or grace period) and is returned as it now is.
type GracefulDeleter interface {
	Delete(ctx context.Context, name string, deleteValidation ValidateObjectFunc, options *metav1.DeleteOptions) (obj runtime.Object, deleted bool, err error)
}

// CollectionDeleter deletes every object a list selects.
type CollectionDeleter interface {
	DeleteCollection(ctx context.Context, deleteValidation ValidateObjectFunc, options *metav1.DeleteOptions, listOptions *metainternalversion.ListOptions) (runtime.Object, error)
}

// Watcher watches objects.
type Watcher interface {
	Watch(ctx context.Context, options *metainternalversion.ListOptions) (watch.Interface, error)
}

// StandardStorage is what the generic store implements.
type StandardStorage interface {
	Storage
	Scoper
	Getter
	Lister
	Creater
	Updater
	GracefulDeleter
	CollectionDeleter
	Watcher
}

// defaultUpdatedObjectInfo returns a fixed object: a plain PUT.
type defaultUpdatedObjectInfo struct {
	obj runtime.Object
}

// DefaultUpdatedObjectInfo is the UpdatedObjectInfo of a PUT: the new object
// is the request body whatever the current object is.
func DefaultUpdatedObjectInfo(obj runtime.Object) UpdatedObjectInfo {
	return &defaultUpdatedObjectInfo{obj: obj}
}

// Preconditions pins the UID the body names, so a PUT of an object that was
// deleted and recreated meanwhile fails with a conflict.
func (i *defaultUpdatedObjectInfo) Preconditions() *metav1.Preconditions {
	accessor, err := meta.Accessor(i.obj)
	if err != nil || accessor.GetUID() == "" {
		return nil
	}
	uid := accessor.GetUID()
	return &metav1.Preconditions{UID: &uid}
}

func (i *defaultUpdatedObjectInfo) UpdatedObject(context.Context, runtime.Object) (runtime.Object, error) {
	return i.obj.DeepCopyObject(), nil
}

// GroupVersionKindProvider is implemented by storage that serves its
// objects as another kind than its New object's, such as events.k8s.io/v1
// Events over the core/v1 Event storage. The handlers convert between the
// two through the scheme.
type GroupVersionKindProvider interface {
	GroupVersionKind(containingGV schema.GroupVersion) schema.GroupVersionKind
}

// Connecter serves requests upstream answers as a connection to something
// behind the server (pods/exec, attach, portforward, proxy): no body is
// decoded and nothing is stored. The handlers call Connect for each of
// ConnectMethods and serve the handler it returns, or its error.
type Connecter interface {
	ConnectMethods() []string
	Connect(ctx context.Context, name string, req *http.Request) (http.Handler, error)
}
