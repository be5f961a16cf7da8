package clusterrole

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage builds the storage of cluster roles over optsGetter, under
// "clusterroles". They print the default NAME and CREATED AT table, as
// upstream.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:     func() runtime.Object { return &rbacv1.ClusterRole{} },
		NewListFunc: func() runtime.Object { return &rbacv1.ClusterRoleList{} },
		Resource:    rbacv1.Resource("clusterroles"),
		Singular:    rbacv1.Resource("clusterrole"),
		Strategy:    NewStrategy(scheme),
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"clusterroles": store}, nil
}
