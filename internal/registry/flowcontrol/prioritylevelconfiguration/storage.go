package prioritylevelconfiguration

import (
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage builds the storage of priority levels over optsGetter:
// "prioritylevelconfigurations" and "prioritylevelconfigurations/status".
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	strategy := NewStrategy(scheme)
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &flowcontrolv1.PriorityLevelConfiguration{} },
		NewListFunc:    func() runtime.Object { return &flowcontrolv1.PriorityLevelConfigurationList{} },
		Resource:       flowcontrolv1.Resource("prioritylevelconfigurations"),
		Singular:       flowcontrolv1.Resource("prioritylevelconfiguration"),
		Strategy:       strategy,
		TableConvertor: Table(),
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"prioritylevelconfigurations":        store,
		"prioritylevelconfigurations/status": generic.NewStatusREST(store, StatusStrategy{strategy}),
	}, nil
}
