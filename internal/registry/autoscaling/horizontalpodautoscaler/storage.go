package horizontalpodautoscaler

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of horizontalpodautoscalers and their
// status, holding autoscaling/v2 objects. The integrator installs the same
// map under autoscaling/v2 and autoscaling/v1; v1 requests are converted
// by the scheme.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscaler{} },
		NewListFunc:    func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscalerList{} },
		Resource:       autoscalingv2.Resource("horizontalpodautoscalers"),
		Singular:       autoscalingv2.Resource("horizontalpodautoscaler"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		ShortNames:     []string{"hpa"},
		Categories:     []string{"all"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"horizontalpodautoscalers":        store,
		"horizontalpodautoscalers/status": generic.NewStatusREST(store, NewStatusStrategy(scheme)),
	}, nil
}
