package rolebinding

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage builds the storage of role bindings over optsGetter, under
// "rolebindings".
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &rbacv1.RoleBinding{} },
		NewListFunc:    func() runtime.Object { return &rbacv1.RoleBindingList{} },
		Resource:       rbacv1.Resource("rolebindings"),
		Singular:       rbacv1.Resource("rolebinding"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"rolebindings": store}, nil
}
