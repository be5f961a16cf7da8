package namespace

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/printers"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// REST is the storage of namespaces. It wraps the generic store rather
// than embedding it so that only the verbs below are served: DELETE has
// namespace semantics and there is no deletecollection, as upstream.
type REST struct {
	store *generic.Store
}

// StatusREST serves namespaces/status.
type StatusREST struct {
	store *generic.Store
}

// FinalizeREST serves namespaces/finalize.
type FinalizeREST struct {
	store *generic.Store
}

var (
	_ rest.Storage              = (*REST)(nil)
	_ rest.Scoper               = (*REST)(nil)
	_ rest.Lister               = (*REST)(nil)
	_ rest.Creater              = (*REST)(nil)
	_ rest.Patcher              = (*REST)(nil)
	_ rest.GracefulDeleter      = (*REST)(nil)
	_ rest.Watcher              = (*REST)(nil)
	_ rest.ShortNamesProvider   = (*REST)(nil)
	_ rest.SingularNameProvider = (*REST)(nil)
	_ rest.Patcher              = (*StatusREST)(nil)
	_ rest.TableConvertor       = (*StatusREST)(nil)
	_ rest.Updater              = (*FinalizeREST)(nil)
)

// NewREST builds the storage of namespaces and of their status and
// finalize subresources, which share one store and differ in the update
// strategy.
func NewREST(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (*REST, *StatusREST, *FinalizeREST, error) {
	strategy := NewStrategy(scheme)
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &corev1.Namespace{} },
		NewListFunc:    func() runtime.Object { return &corev1.NamespaceList{} },
		Resource:       corev1.Resource("namespaces"),
		Singular:       corev1.Resource("namespace"),
		Strategy:       strategy,
		TableConvertor: printers.NamespaceTable(),
		AttrFunc:       GetAttrs,
	}, optsGetter)
	if err != nil {
		return nil, nil, nil, err
	}
	store.ReturnDeletedObject = true
	store.ShouldDeleteDuringUpdate = ShouldDeleteDuringUpdate
	statusStore := *store
	statusStore.UpdateStrategy = StatusStrategy{strategy}
	finalizeStore := *store
	finalizeStore.UpdateStrategy = FinalizeStrategy{strategy}
	return &REST{store: store}, &StatusREST{store: &statusStore}, &FinalizeREST{store: &finalizeStore}, nil
}

// New returns an empty namespace.
func (r *REST) New() runtime.Object { return r.store.New() }

// NewList returns an empty namespace list.
func (r *REST) NewList() runtime.Object { return r.store.NewList() }

// Destroy releases the storage shared with the subresources.
func (r *REST) Destroy() { r.store.Destroy() }

// NamespaceScoped is false.
func (r *REST) NamespaceScoped() bool { return r.store.NamespaceScoped() }

// GetSingularName is "namespace".
func (r *REST) GetSingularName() string { return r.store.GetSingularName() }

// ShortNames are the aliases kubectl accepts.
func (r *REST) ShortNames() []string { return []string{"ns"} }

// Get reads a namespace.
func (r *REST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// List lists namespaces.
func (r *REST) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	return r.store.List(ctx, options)
}

// ConvertToTable prints NAME STATUS AGE.
func (r *REST) ConvertToTable(ctx context.Context, object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, object, tableOptions)
}

// Create creates a namespace.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	return r.store.Create(ctx, obj, createValidation, options)
}

// Update updates a namespace; spec.finalizers and status are kept.
func (r *REST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, forceAllowCreate, options)
}

// Watch watches namespaces.
func (r *REST) Watch(ctx context.Context, options *metainternalversion.ListOptions) (watch.Interface, error) {
	return r.store.Watch(ctx, options)
}

// New returns an empty namespace.
func (r *StatusREST) New() runtime.Object { return r.store.New() }

// Destroy does nothing: the store belongs to REST.
func (r *StatusREST) Destroy() {}

// Get reads a namespace; patches of the status need it.
func (r *StatusREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// Update writes the status. A subresource never creates its object.
func (r *StatusREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, _ bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, options)
}

// ConvertToTable prints the namespace.
func (r *StatusREST) ConvertToTable(ctx context.Context, object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, object, tableOptions)
}

// New returns an empty namespace.
func (r *FinalizeREST) New() runtime.Object { return r.store.New() }

// Destroy does nothing: the store belongs to REST.
func (r *FinalizeREST) Destroy() {}

// Update writes spec.finalizers. A subresource never creates its object.
func (r *FinalizeREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, _ bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, options)
}
