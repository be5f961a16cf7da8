package runtimeclass

import (
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage builds the storage of runtime classes over optsGetter, under
// "runtimeclasses".
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &nodev1.RuntimeClass{} },
		NewListFunc:    func() runtime.Object { return &nodev1.RuntimeClassList{} },
		Resource:       nodev1.Resource("runtimeclasses"),
		Singular:       nodev1.Resource("runtimeclass"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"runtimeclasses": store}, nil
}
