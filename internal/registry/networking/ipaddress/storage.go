package ipaddress

import (
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of ipaddresses, short name ip. The
// "ipaddresses" entry is a *generic.Store; the service storage allocates
// cluster IPs through it (service.Options.IPAddresses).
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := NewREST(scheme, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"ipaddresses": store}, nil
}

// NewREST builds the IPAddress store.
func NewREST(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (*generic.Store, error) {
	return generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &networkingv1.IPAddress{} },
		NewListFunc:    func() runtime.Object { return &networkingv1.IPAddressList{} },
		Resource:       networkingv1.Resource("ipaddresses"),
		Singular:       networkingv1.Resource("ipaddress"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		ShortNames:     []string{"ip"},
	}, optsGetter)
}
