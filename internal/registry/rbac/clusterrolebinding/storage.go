package clusterrolebinding

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage builds the storage of cluster role bindings over optsGetter,
// under "clusterrolebindings".
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &rbacv1.ClusterRoleBinding{} },
		NewListFunc:    func() runtime.Object { return &rbacv1.ClusterRoleBindingList{} },
		Resource:       rbacv1.Resource("clusterrolebindings"),
		Singular:       rbacv1.Resource("clusterrolebinding"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"clusterrolebindings": store}, nil
}
