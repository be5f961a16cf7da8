package resourceclaimtemplate

import (
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of resourceclaimtemplates.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &resourcev1.ResourceClaimTemplate{} },
		NewListFunc:    func() runtime.Object { return &resourcev1.ResourceClaimTemplateList{} },
		Resource:       resourcev1.Resource("resourceclaimtemplates"),
		Singular:       resourcev1.Resource("resourceclaimtemplate"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"resourceclaimtemplates": store}, nil
}
