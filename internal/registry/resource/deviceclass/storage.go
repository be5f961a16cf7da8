package deviceclass

import (
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of deviceclasses.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &resourcev1.DeviceClass{} },
		NewListFunc:    func() runtime.Object { return &resourcev1.DeviceClassList{} },
		Resource:       resourcev1.Resource("deviceclasses"),
		Singular:       resourcev1.Resource("deviceclass"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"deviceclasses": store}, nil
}
