package storageclass

import (
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of storageclasses (short name sc).
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &storagev1.StorageClass{} },
		NewListFunc:    func() runtime.Object { return &storagev1.StorageClassList{} },
		Resource:       storagev1.Resource("storageclasses"),
		Singular:       storagev1.Resource("storageclass"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		ShortNames:     []string{"sc"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"storageclasses": store}, nil
}
