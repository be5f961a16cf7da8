package csistoragecapacity

import (
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of csistoragecapacities.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &storagev1.CSIStorageCapacity{} },
		NewListFunc:    func() runtime.Object { return &storagev1.CSIStorageCapacityList{} },
		Resource:       storagev1.Resource("csistoragecapacities"),
		Singular:       storagev1.Resource("csistoragecapacity"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"csistoragecapacities": store}, nil
}
