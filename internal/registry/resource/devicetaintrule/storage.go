package devicetaintrule

import (
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of devicetaintrules and
// devicetaintrules/status. kube-apiserver has no columns of its own for
// them: tables print NAME and CREATED AT.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	strategy := NewStrategy(scheme)
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:     func() runtime.Object { return &resourcev1.DeviceTaintRule{} },
		NewListFunc: func() runtime.Object { return &resourcev1.DeviceTaintRuleList{} },
		Resource:    resourcev1.Resource("devicetaintrules"),
		Singular:    resourcev1.Resource("devicetaintrule"),
		Strategy:    strategy,
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"devicetaintrules":        store,
		"devicetaintrules/status": generic.NewStatusREST(store, StatusStrategy{strategy}),
	}, nil
}
