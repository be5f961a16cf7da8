package resourceslice

import (
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of resourceslices.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &resourcev1.ResourceSlice{} },
		NewListFunc:    func() runtime.Object { return &resourcev1.ResourceSliceList{} },
		Resource:       resourcev1.Resource("resourceslices"),
		Singular:       resourcev1.Resource("resourceslice"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		AttrFunc:       GetAttrs,
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"resourceslices": store}, nil
}
