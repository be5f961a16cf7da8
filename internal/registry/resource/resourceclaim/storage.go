package resourceclaim

import (
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of resourceclaims and
// resourceclaims/status.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	strategy := NewStrategy(scheme)
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &resourcev1.ResourceClaim{} },
		NewListFunc:    func() runtime.Object { return &resourcev1.ResourceClaimList{} },
		Resource:       resourcev1.Resource("resourceclaims"),
		Singular:       resourcev1.Resource("resourceclaim"),
		Strategy:       strategy,
		TableConvertor: Table(),
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"resourceclaims":        store,
		"resourceclaims/status": generic.NewStatusREST(store, StatusStrategy{strategy}),
	}, nil
}
