package volumeattributesclass

import (
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of volumeattributesclasses (short name
// vac).
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &storagev1.VolumeAttributesClass{} },
		NewListFunc:    func() runtime.Object { return &storagev1.VolumeAttributesClassList{} },
		Resource:       storagev1.Resource("volumeattributesclasses"),
		Singular:       storagev1.Resource("volumeattributesclass"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		ShortNames:     []string{"vac"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"volumeattributesclasses": store}, nil
}
