package ingress

import (
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of ingresses (short name ing) and
// ingresses/status.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &networkingv1.Ingress{} },
		NewListFunc:    func() runtime.Object { return &networkingv1.IngressList{} },
		Resource:       networkingv1.Resource("ingresses"),
		Singular:       networkingv1.Resource("ingress"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		ShortNames:     []string{"ing"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"ingresses":        store,
		"ingresses/status": generic.NewStatusREST(store, NewStatusStrategy(scheme)),
	}, nil
}
