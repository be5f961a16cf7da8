package controllerrevision

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage builds the controller revision storage over optsGetter:
// "controllerrevisions". They have no short name and no category.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &appsv1.ControllerRevision{} },
		NewListFunc:    func() runtime.Object { return &appsv1.ControllerRevisionList{} },
		Resource:       appsv1.Resource("controllerrevisions"),
		Singular:       appsv1.Resource("controllerrevision"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"controllerrevisions": store}, nil
}
