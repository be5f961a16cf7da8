package cronjob

import (
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of cronjobs and cronjobs/status, which
// share one store.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &batchv1.CronJob{} },
		NewListFunc:    func() runtime.Object { return &batchv1.CronJobList{} },
		Resource:       batchv1.Resource("cronjobs"),
		Singular:       batchv1.Resource("cronjob"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		ShortNames:     []string{"cj"},
		Categories:     []string{"all"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"cronjobs":        store,
		"cronjobs/status": generic.NewStatusREST(store, NewStatusStrategy(scheme)),
	}, nil
}
