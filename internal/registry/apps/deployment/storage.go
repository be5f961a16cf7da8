package deployment

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/registry/scale"
)

// NewStorage builds the deployment storage over optsGetter:
// "deployments", "deployments/status" and "deployments/scale".
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &appsv1.Deployment{} },
		NewListFunc:    func() runtime.Object { return &appsv1.DeploymentList{} },
		Resource:       appsv1.Resource("deployments"),
		Singular:       appsv1.Resource("deployment"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		ShortNames:     []string{"deploy"},
		Categories:     []string{"all"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"deployments":        store,
		"deployments/status": generic.NewStatusREST(store, NewStatusStrategy(scheme)),
		"deployments/scale":  scale.NewREST(store, scaleAccessor),
	}, nil
}

var scaleAccessor = scale.Accessor{
	GetReplicas:    func(obj runtime.Object) int32 { return ptr.Deref(obj.(*appsv1.Deployment).Spec.Replicas, 0) },
	SetReplicas:    func(obj runtime.Object, n int32) { obj.(*appsv1.Deployment).Spec.Replicas = &n },
	StatusReplicas: func(obj runtime.Object) int32 { return obj.(*appsv1.Deployment).Status.Replicas },
	Selector: func(obj runtime.Object) (string, error) {
		return scale.LabelSelector(obj.(*appsv1.Deployment).Spec.Selector)
	},
}
