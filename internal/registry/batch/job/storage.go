package job

import (
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of jobs and jobs/status, which share one
// store.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &batchv1.Job{} },
		NewListFunc:    func() runtime.Object { return &batchv1.JobList{} },
		Resource:       batchv1.Resource("jobs"),
		Singular:       batchv1.Resource("job"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		AttrFunc:       GetAttrs,
		Categories:     []string{"all"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"jobs":        store,
		"jobs/status": generic.NewStatusREST(store, NewStatusStrategy(scheme)),
	}, nil
}
