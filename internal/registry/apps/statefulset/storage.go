package statefulset

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/registry/scale"
)

// NewStorage builds the stateful set storage over optsGetter:
// "statefulsets", "statefulsets/status" and "statefulsets/scale".
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &appsv1.StatefulSet{} },
		NewListFunc:    func() runtime.Object { return &appsv1.StatefulSetList{} },
		Resource:       appsv1.Resource("statefulsets"),
		Singular:       appsv1.Resource("statefulset"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		ShortNames:     []string{"sts"},
		Categories:     []string{"all"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"statefulsets":        store,
		"statefulsets/status": generic.NewStatusREST(store, NewStatusStrategy(scheme)),
		"statefulsets/scale":  scale.NewREST(store, scaleAccessor),
	}, nil
}

var scaleAccessor = scale.Accessor{
	GetReplicas:    func(obj runtime.Object) int32 { return ptr.Deref(obj.(*appsv1.StatefulSet).Spec.Replicas, 0) },
	SetReplicas:    func(obj runtime.Object, n int32) { obj.(*appsv1.StatefulSet).Spec.Replicas = &n },
	StatusReplicas: func(obj runtime.Object) int32 { return obj.(*appsv1.StatefulSet).Status.Replicas },
	Selector: func(obj runtime.Object) (string, error) {
		return scale.LabelSelector(obj.(*appsv1.StatefulSet).Spec.Selector)
	},
}
