package daemonset

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage builds the daemon set storage over optsGetter: "daemonsets"
// and "daemonsets/status". Daemon sets have no scale subresource.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &appsv1.DaemonSet{} },
		NewListFunc:    func() runtime.Object { return &appsv1.DaemonSetList{} },
		Resource:       appsv1.Resource("daemonsets"),
		Singular:       appsv1.Resource("daemonset"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		ShortNames:     []string{"ds"},
		Categories:     []string{"all"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"daemonsets":        store,
		"daemonsets/status": generic.NewStatusREST(store, NewStatusStrategy(scheme)),
	}, nil
}
