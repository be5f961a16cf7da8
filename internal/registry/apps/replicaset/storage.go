package replicaset

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/registry/scale"
)

// NewStorage builds the replica set storage over optsGetter:
// "replicasets", "replicasets/status" and "replicasets/scale".
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &appsv1.ReplicaSet{} },
		NewListFunc:    func() runtime.Object { return &appsv1.ReplicaSetList{} },
		Resource:       appsv1.Resource("replicasets"),
		Singular:       appsv1.Resource("replicaset"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		ShortNames:     []string{"rs"},
		Categories:     []string{"all"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"replicasets":        store,
		"replicasets/status": generic.NewStatusREST(store, NewStatusStrategy(scheme)),
		"replicasets/scale":  scale.NewREST(store, scaleAccessor),
	}, nil
}

var scaleAccessor = scale.Accessor{
	GetReplicas:    func(obj runtime.Object) int32 { return ptr.Deref(obj.(*appsv1.ReplicaSet).Spec.Replicas, 0) },
	SetReplicas:    func(obj runtime.Object, n int32) { obj.(*appsv1.ReplicaSet).Spec.Replicas = &n },
	StatusReplicas: func(obj runtime.Object) int32 { return obj.(*appsv1.ReplicaSet).Status.Replicas },
	Selector: func(obj runtime.Object) (string, error) {
		return scale.LabelSelector(obj.(*appsv1.ReplicaSet).Spec.Selector)
	},
}
