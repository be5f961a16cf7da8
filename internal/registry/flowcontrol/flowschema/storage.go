package flowschema

import (
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage builds the storage of flow schemas over optsGetter:
// "flowschemas" and "flowschemas/status".
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	strategy := NewStrategy(scheme)
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &flowcontrolv1.FlowSchema{} },
		NewListFunc:    func() runtime.Object { return &flowcontrolv1.FlowSchemaList{} },
		Resource:       flowcontrolv1.Resource("flowschemas"),
		Singular:       flowcontrolv1.Resource("flowschema"),
		Strategy:       strategy,
		TableConvertor: NewTable(),
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"flowschemas":        store,
		"flowschemas/status": generic.NewStatusREST(store, StatusStrategy{strategy}),
	}, nil
}
