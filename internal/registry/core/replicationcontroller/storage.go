package replicationcontroller

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/registry/scale"
)

// NewStorage builds the storage of replication controllers:
// "replicationcontrollers", "replicationcontrollers/status" and
// "replicationcontrollers/scale" (autoscaling/v1 Scale).
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &corev1.ReplicationController{} },
		NewListFunc:    func() runtime.Object { return &corev1.ReplicationControllerList{} },
		Resource:       corev1.Resource("replicationcontrollers"),
		Singular:       corev1.Resource("replicationcontroller"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		AttrFunc:       GetAttrs,
		ShortNames:     []string{"rc"},
		Categories:     []string{"all"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"replicationcontrollers":        store,
		"replicationcontrollers/status": generic.NewStatusREST(store, NewStatusStrategy(scheme)),
		"replicationcontrollers/scale":  scale.NewREST(store, scaleAccessor),
	}, nil
}

// scaleAccessor maps a Scale onto spec.replicas, status.replicas and the
// map selector.
var scaleAccessor = scale.Accessor{
	GetReplicas: func(obj runtime.Object) int32 {
		if r := obj.(*corev1.ReplicationController).Spec.Replicas; r != nil {
			return *r
		}
		return 0
	},
	SetReplicas: func(obj runtime.Object, n int32) {
		obj.(*corev1.ReplicationController).Spec.Replicas = &n
	},
	StatusReplicas: func(obj runtime.Object) int32 {
		return obj.(*corev1.ReplicationController).Status.Replicas
	},
	Selector: func(obj runtime.Object) (string, error) {
		return labels.SelectorFromSet(obj.(*corev1.ReplicationController).Spec.Selector).String(), nil
	},
}
