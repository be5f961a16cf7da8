package servicecidr

import (
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of servicecidrs and servicecidrs/status.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	strategy := NewStrategy(scheme)
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &networkingv1.ServiceCIDR{} },
		NewListFunc:    func() runtime.Object { return &networkingv1.ServiceCIDRList{} },
		Resource:       networkingv1.Resource("servicecidrs"),
		Singular:       networkingv1.Resource("servicecidr"),
		Strategy:       strategy,
		TableConvertor: Table(),
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"servicecidrs":        store,
		"servicecidrs/status": generic.NewStatusREST(store, StatusStrategy{strategy}),
	}, nil
}
