package networkpolicy

import (
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of networkpolicies (short name netpol).
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &networkingv1.NetworkPolicy{} },
		NewListFunc:    func() runtime.Object { return &networkingv1.NetworkPolicyList{} },
		Resource:       networkingv1.Resource("networkpolicies"),
		Singular:       networkingv1.Resource("networkpolicy"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		ShortNames:     []string{"netpol"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"networkpolicies": store}, nil
}
