package apiservice

import (
	"k8s.io/apimachinery/pkg/runtime"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage builds the APIService storage over optsGetter: "apiservices"
// and "apiservices/status".
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &apiregistrationv1.APIService{} },
		NewListFunc:    func() runtime.Object { return &apiregistrationv1.APIServiceList{} },
		Resource:       apiregistrationv1.Resource("apiservices"),
		Singular:       apiregistrationv1.Resource("apiservice"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		Categories:     []string{"api-extensions"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"apiservices":        store,
		"apiservices/status": generic.NewStatusREST(store, NewStatusStrategy(scheme)),
	}, nil
}
