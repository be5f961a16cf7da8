package generic

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// StatusREST serves a resource's status subresource (get, update, patch)
// over the resource's store with another update strategy, usually one
// that keeps spec and takes status.
type StatusREST struct {
	store *Store
}

var (
	_ rest.Patcher             = (*StatusREST)(nil)
	_ rest.TableConvertor      = (*StatusREST)(nil)
	_ rest.ResetFieldsStrategy = (*StatusREST)(nil)
)

// NewStatusREST returns the status subresource of store: the same
// storage, written through strategy.
func NewStatusREST(store *Store, strategy rest.RESTUpdateStrategy) *StatusREST {
	statusStore := *store
	statusStore.UpdateStrategy = strategy
	return &StatusREST{store: &statusStore}
}

// New returns an empty object of the parent's kind.
func (r *StatusREST) New() runtime.Object { return r.store.New() }

// Destroy does nothing: the parent resource owns the storage.
func (r *StatusREST) Destroy() {}

// Get reads the parent object.
func (r *StatusREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// Update writes the status of the parent object; it never creates.
func (r *StatusREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, _ bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, options)
}

// ConvertToTable renders the parent's table.
func (r *StatusREST) ConvertToTable(ctx context.Context, object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, object, tableOptions)
}

// GetResetFields is what a status write ignores, when the strategy says.
func (r *StatusREST) GetResetFields() map[string]struct{} {
	if s, ok := r.store.UpdateStrategy.(rest.ResetFieldsStrategy); ok {
		return s.GetResetFields()
	}
	return nil
}
